import { Controller, Get, Header, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../../shared/auth/auth.decorators';
import { ServiceUnavailableError } from '../../shared/errors/domain-error';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { Metrics } from './metrics';
import { MetricsAccessGuard } from './metrics.guard';

@ApiTags('Health')
@Controller()
@Public()
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(TypeOrmHealthIndicator) private readonly db: TypeOrmHealthIndicator,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {}

  @Get('health')
  @ApiOperation({
    summary: 'Liveness: the process is up',
    description: 'Answers plain HTTP in every mode (production included), so a load balancer can probe each instance directly.',
  })
  @ApiEnvelope({ example: { status: 'ok' } })
  live() {
    return reply({ status: 'ok' }, 'Service is up');
  }

  @Get('health/ready')
  @ApiOperation({
    summary: 'Readiness: the database answers (503 when not)',
    description: "Answers plain HTTP in every mode (production included): point the load balancer's health check here.",
  })
  @ApiEnvelope({ example: { status: 'ok', info: { database: { status: 'up' } } } })
  @ApiErrors(503)
  async ready() {
    try {
      const result = await this.health.check([() => this.db.pingCheck('database', { timeout: 2000 })]);
      return reply({ status: result.status, info: result.info }, 'Service is ready');
    } catch {
      throw new ServiceUnavailableError('The database is unreachable');
    }
  }

  /** Prometheus metrics; see MetricsAccessGuard for who may read them. */
  @Get('metrics')
  @ApiExcludeEndpoint()
  @UseGuards(MetricsAccessGuard)
  @Header('Cache-Control', 'no-store')
  async prometheus(@Res() res: Response) {
    res.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
