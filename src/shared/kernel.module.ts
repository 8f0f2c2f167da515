import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { DbNotifications } from './db/notifications';
import { TransactionRunner } from './db/transaction-runner';
import { EventOutbox } from './events/outbox';
import { DurableEventHandlers } from './events/durable-handlers';
import { RateLimiter } from './rate-limit/rate-limiter';
import { JsonBodyReader } from './http/middleware';
import { IdempotencyInterceptor } from './idempotency/idempotency';
import { DataSource } from 'typeorm';
import { Clock, ControlledClock, SystemClock } from './time/clock';
import { SecretBox, secretBoxFromSettings } from './crypto/secret-box';
import { MetricsRegistry } from './metrics/metrics-registry';
import { BackgroundWork } from './lifecycle/background-work';
import { OtherModeIds } from './ids/other-mode-ids';
import { AuditedActionInterceptor, AuditTrail } from './audit/audit-trail';
import { PartitionRetention } from './db/partition-retention';

/**
 * The shared kernel every module may inject: configuration, clock, the secret box, transactions, rate limits,
 * the event outbox and its durable handlers' worker, the metrics registry, the owners of each id kind (OtherModeIds),
 * the retention job of time-partitioned tables (PartitionRetention).
 */
@Global()
@Module({})
export class KernelModule {
  static forRoot(config: AppConfig, given?: Clock): DynamicModule {
    return {
      module: KernelModule,
      providers: [
        { provide: AppConfig, useValue: config },
        // CLOCK_CONTROL (never in production: loadConfig refuses it) lets tests move a test mode's time forward.
        given
          ? { provide: Clock, useValue: given }
          : config.CLOCK_CONTROL
            ? { provide: Clock, useFactory: (ds: DataSource) => new ControlledClock(ds), inject: [DataSource] }
            : { provide: Clock, useValue: new SystemClock() },
        { provide: SecretBox, useValue: secretBoxFromSettings(config) },
        TransactionRunner,
        DbNotifications,
        RateLimiter,
        IdempotencyInterceptor,
        EventOutbox,
        DurableEventHandlers,
        JsonBodyReader,
        BackgroundWork,
        OtherModeIds,
        AuditTrail,
        AuditedActionInterceptor,
        PartitionRetention,
        { provide: MetricsRegistry, useValue: new MetricsRegistry() },
      ],
      exports: [
        AppConfig,
        Clock,
        SecretBox,
        TransactionRunner,
        DbNotifications,
        RateLimiter,
        IdempotencyInterceptor,
        EventOutbox,
        JsonBodyReader,
        MetricsRegistry,
        BackgroundWork,
        DurableEventHandlers,
        OtherModeIds,
        AuditTrail,
        AuditedActionInterceptor,
        PartitionRetention,
      ],
    };
  }
}
