import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { TransactionRunner } from './db/transaction-runner';
import { EventOutbox } from './events/outbox';
import { Clock, SystemClock } from './time/clock';

/** The shared kernel every module may inject: configuration, clock, transactions, the event outbox. */
@Global()
@Module({})
export class KernelModule {
  static forRoot(config: AppConfig, clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: KernelModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        TransactionRunner,
        EventOutbox,
      ],
      exports: [AppConfig, Clock, TransactionRunner, EventOutbox],
    };
  }
}
