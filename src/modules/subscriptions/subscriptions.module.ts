import { UsageEventsRetention } from './usage-events-retention';
import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DuePeriods } from './billing/due-periods';
import { PeriodInvoicer } from './billing/period-invoicer';
import { CancelSubscriptionHandler } from './commands/cancel-subscription/cancel-subscription.handler';
import { CreateSubscriptionHandler } from './commands/create-subscription/create-subscription.handler';
import { RecordUsageHandler } from './commands/record-usage/record-usage.handler';
import { SubscriptionEvents } from './commands/subscription-events';
import { SubscriptionInvoiceRecord, SubscriptionRecord } from './persistence/subscription.record';
import { SubscriptionsRepository } from './persistence/subscriptions.repository';
import { UsageEventsRepository } from './persistence/usage-events.repository';
import { GetSubscriptionHandler } from './queries/get-subscription/get-subscription.handler';
import { ListSubscriptionsHandler } from './queries/list-subscriptions/list-subscriptions.handler';
import { SubscriptionFiguresHandler } from './queries/subscription-figures/subscription-figures.handler';
import { UpcomingInvoiceHandler } from './queries/upcoming-invoice/upcoming-invoice.handler';
import { SubscriptionCatalog } from './subscription-catalog';
import { PeriodInvoiceOutcomeHandler } from './reactions/period-invoice-outcome.handler';
import { SubscriptionScheduler } from './subscription-scheduler';
import { loadSubscriptionsConfig, SubscriptionsConfig } from './subscriptions.config';
import { SubscriptionsController, UsageEventsController } from './subscriptions.controller';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/**
 * Subscriptions to RECURRING billing schemas and their usage (decisions §20, docs/subscriptions.md).
 * Reads the catalog with GetProductQuery (products), issues period invoices with CreateInvoiceCommand
 * and follows them with GetInvoiceStatusesQuery (invoices); its scheduler runs in each server instance.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SubscriptionRecord, SubscriptionInvoiceRecord])],
  controllers: [SubscriptionsController, UsageEventsController],
  providers: [
    { provide: SubscriptionsConfig, useFactory: () => loadSubscriptionsConfig(process.env) },
    SubscriptionsRepository,
    UsageEventsRepository,
    SubscriptionCatalog,
    SubscriptionEvents,
    PeriodInvoicer,
    DuePeriods,
    SubscriptionScheduler,
    PeriodInvoiceOutcomeHandler,
    CreateSubscriptionHandler,
    CancelSubscriptionHandler,
    RecordUsageHandler,
    GetSubscriptionHandler,
    ListSubscriptionsHandler,
    UpcomingInvoiceHandler,
    SubscriptionFiguresHandler,
    UsageEventsRetention,
  ],
  exports: [SubscriptionScheduler],
})
export class SubscriptionsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly subscriptions: SubscriptionsRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register(
      'subscription',
      'subscription_not_found',
      async (scope, id) => (await this.subscriptions.find(this.tx.manager, scope, id)) !== null,
    );
  }
}
