import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import type { Currency } from '../../../../shared/money/currency';
import { type Amount, MAX_INTEGER_DIGITS, Money } from '../../../../shared/money/money';
import { RatesAsOfQuery } from '../../../rates';
import { baseAmount, BillingTerms, initialSchedule } from '../../domain/billing';
import { periodAt } from '../../domain/periods';
import { subscriptionView, SubscriptionView } from '../../dto/subscription.view';
import type { SubscriptionRecord } from '../../persistence/subscription.record';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { SubscriptionCatalog } from '../../subscription-catalog';
import { SubscriptionEvents } from '../subscription-events';
import { CreateSubscriptionCommand } from './create-subscription.command';

/** How far in the past starts_at may be: a subscription does not bill a backlog of old periods. */
export const MAX_STARTS_AT_AGE_MS = 24 * 3600 * 1000;

@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(SubscriptionCatalog) private readonly catalog: SubscriptionCatalog,
    @Inject(SubscriptionEvents) private readonly events: SubscriptionEvents,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ scope, input }: CreateSubscriptionCommand): Promise<SubscriptionView> {
    const product = await this.catalog.product(scope, input.productId);
    if (!product) throw new ValidationFailedError({ product_id: 'is not a product of this organization and mode' });
    const schema = this.catalog.schemaOf(product, input.billingSchemaId);
    if (!schema) throw new ValidationFailedError({ billing_schema_id: 'is not a billing schema of this product' });
    if (!schema.productActive) throw new ValidationFailedError({ product_id: 'is an inactive product version; use the current one' });
    if (!schema.schemaActive) throw new ValidationFailedError({ billing_schema_id: 'is an inactive billing schema version; use the current one' });
    if (schema.type !== 'RECURRING' || !schema.intervalType || !schema.intervalCount || !schema.paymentType || !schema.renewType || !schema.billingType) {
      throw new ValidationFailedError({ billing_schema_id: 'must be a RECURRING billing schema' });
    }
    await this.refuseBaseTooLarge(schema.basePrice, input.quantity, schema.currency);
    const now = await this.clock.nowFor(scope);
    const startsAt = input.startsAt ?? now;
    if (startsAt.getTime() < now.getTime() - MAX_STARTS_AT_AGE_MS) throw new ValidationFailedError({ starts_at: 'must not be more than 24 hours in the past' });
    const terms: BillingTerms = {
      intervalType: schema.intervalType,
      intervalCount: schema.intervalCount,
      paymentType: schema.paymentType,
      renewType: schema.renewType,
      billingType: schema.billingType,
    };
    const schedule = initialSchedule(terms, startsAt);
    const period = periodAt(terms, startsAt, schedule.currentIndex);
    const record: SubscriptionRecord = {
      id: newId('subscription'),
      organizationId: scope.organizationId,
      mode: scope.mode,
      productId: schema.productId,
      billingSchemaId: schema.schemaId,
      customerEmail: input.customerEmail,
      customerName: input.customerName,
      quantity: input.quantity,
      metadata: input.metadata,
      status: 'ACTIVE',
      currency: schema.currency,
      basePrice: schema.basePrice,
      ...terms,
      startsAt,
      currentPeriodIndex: schedule.currentIndex,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      nextInvoiceIndex: schedule.nextInvoiceIndex,
      nextInvoiceAt: schedule.nextInvoiceAt,
      latestInvoiceId: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      unpaidPeriods: 0,
      lastUnpaidIndex: -1,
      createdAt: now,
      updatedAt: now,
    };
    await this.tx.run(async (m) => {
      await this.repo.insert(m, record);
      await this.events.created(m, scope, record);
    });
    return subscriptionView(record);
  }

  /**
   * Every period invoice charges the base price `quantity` times: past what an amount holds (48 integer
   * digits), in the schema's currency or in USD at today's rates, each of them would fail for good. Refused
   * here instead, naming `quantity`.
   */
  private async refuseBaseTooLarge(basePrice: Amount, quantity: number, currency: Currency): Promise<void> {
    const limit = new Money(10).pow(MAX_INTEGER_DIGITS);
    const base = baseAmount(basePrice, quantity, { part: new Money(1), whole: new Money(1) });
    if (base.greaterThanOrEqualTo(limit)) {
      throw new ValidationFailedError({ quantity: `times the base price comes to more than ${MAX_INTEGER_DIGITS} integer digits in ${currency}; lower it` });
    }
    const rate = (await this.queries.execute(new RatesAsOfQuery())).usd[currency];
    if (rate && base.mul(rate).greaterThanOrEqualTo(limit)) {
      throw new ValidationFailedError({ quantity: `times the base price is worth more than ${MAX_INTEGER_DIGITS} integer digits of USD; lower it` });
    }
  }
}
