/**
 * The framework floor: the minimal floor's two writes (bench/minimal-floor.ts, the same statements on
 * the same trigger-free tables) served by the service's own stack, and nothing else of the service.
 * A NestJS application on Express, its JSON body parser, the service's global ValidationPipe and its
 * request classes (CreateInvoiceRequestDto, SimulatePaymentRequestDto), a controller and a pg pool.
 * No authentication, security headers, logging, metrics, envelope, buses, pricing, events or triggers.
 *
 * Against the minimal floor it shows what the chosen HTTP stack costs a write by itself; against the
 * service, what the service adds to that stack.
 *
 *   DATABASE_URL=... PORT=... FLOOR_ORG=org_bench_042 FLOOR_MODE=test FLOOR_POOL=4 node dist/bench/framework-floor.js
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Inject, Module, NotFoundException, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { CreateInvoiceRequestDto } from '../src/modules/invoices/dto/create-invoice.request.dto';
import { SimulatePaymentRequestDto } from '../src/modules/payments/dto/test-helpers.dto';
import { createValidationPipe } from '../src/shared/http/validation';
import { minimalCreate, minimalPay } from './minimal-floor';

const POOL = Symbol('pool');
const org = process.env.FLOOR_ORG ?? 'org_bench_042';
const mode = process.env.FLOOR_MODE ?? 'test';

@Controller()
class FloorController {
  constructor(@Inject(POOL) private readonly pool: Pool) {}

  @Post('invoices/create')
  @HttpCode(201)
  create(@Body() input: CreateInvoiceRequestDto): Promise<{ id: string }> {
    return minimalCreate(this.pool, org, mode, input);
  }

  @Post('test_helpers/payments')
  @HttpCode(201)
  async pay(@Body() input: SimulatePaymentRequestDto): Promise<{ id: string; invoice: { id: string; status: string } }> {
    const paid = await minimalPay(this.pool, org, mode, input);
    if (!paid) throw new NotFoundException('invoice not found');
    return paid;
  }
}

@Module({
  controllers: [FloorController],
  providers: [{ provide: POOL, useFactory: () => new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.FLOOR_POOL ?? 4) }) }],
})
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: false });
  app.useGlobalPipes(createValidationPipe());
  app.getHttpServer().keepAliveTimeout = 60_000;
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  const address = app.getHttpServer().address();
  process.stdout.write(`framework floor listening on ${typeof address === 'object' && address ? address.port : ''}\n`);
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => app.get<Pool>(POOL).end())
      .finally(() => process.exit(0));
  });
}

void main();
