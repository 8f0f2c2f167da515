import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { Metrics, MetricsMiddleware } from './metrics';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [Metrics, MetricsMiddleware],
  exports: [Metrics, MetricsMiddleware],
})
export class HealthModule {}
