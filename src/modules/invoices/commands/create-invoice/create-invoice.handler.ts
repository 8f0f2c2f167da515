import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { newId } from '../../../../shared/ids/ids';
import { parseAmount } from '../../../../shared/money/money';
import { InvoicesConfig } from '../../invoices.config';
import { Clock } from '../../../../shared/time/clock';
import { expiresAtFor } from '../../domain/invoice-timing';
import { CalculatePricesQuery, ItemInput } from '../../../quotes';
import { calculationLines } from '../../domain/calculation-rows';
import { buildCalculationRecords } from '../../persistence/calculation-records';
import { InvoiceItemRecord } from '../../persistence/invoice-item.record';
import { InvoiceRecord } from '../../persistence/invoice.record';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceEvents } from '../invoice-events';
import { CreateInvoiceCommand } from './create-invoice.command';

@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(InvoicesConfig) private readonly config: InvoicesConfig,
    @Inject(InvoiceEvents) private readonly events: InvoiceEvents,
  ) {}

  async execute({ scope, input }: CreateInvoiceCommand): Promise<{ id: string; created?: boolean }> {
    const period = input.subscription ?? null;
    if (period) {
      // A period invoicing run again (another instance, or after a crash): the first one's invoice.
      const existing = await this.repo.findSubscriptionPeriod(this.tx.manager, scope, period.subscriptionId, period.periodStart);
      if (existing) return { id: existing, created: false };
    }
    // Each payment intent gets its own id, carried into its calculation details.
    const items: ItemInput[] = input.items.map((item) =>
      item.type === 'PAYMENT_INTENT'
        ? { type: 'PAYMENT_INTENT', currency: item.currency, price: item.price, payment_intent_id: newId('pi') }
        : { type: 'PRODUCT', product_id: item.product_id, billing_schema_id: item.billing_schema_id, quantity: item.quantity },
    );
    const calc = await this.queries.execute(new CalculatePricesQuery(scope, items, input.currency, undefined, true));

    // The scope's now: a test mode's moved test clock dates its invoices (and their expiry) too.
    const now = await this.clock.nowFor(scope);
    const invoiceId = newId('invoice');
    const base = { organizationId: scope.organizationId, mode: scope.mode };
    const itemRecords: InvoiceItemRecord[] = items.map((item, position) => {
      const resolved = calc.items.find((c) => c.index === position);
      const currency = resolved?.item.currency ?? (item.type === 'PAYMENT_INTENT' ? item.currency : calc.currency);
      return {
        ...base,
        id: newId('invoice_item'),
        invoiceId,
        type: item.type,
        currency,
        productId: item.type === 'PRODUCT' ? item.product_id : null,
        billingSchemaId: item.type === 'PRODUCT' ? item.billing_schema_id : null,
        paymentIntentId: item.type === 'PAYMENT_INTENT' ? (item.payment_intent_id ?? null) : null,
        price: item.type === 'PAYMENT_INTENT' ? parseAmount(item.price) : null,
        quantity: item.type === 'PRODUCT' ? item.quantity : 1,
        position,
        status: 'INCLUDED',
        excludeReason: null,
        description: input.items[position].description ?? null,
        createdAt: now,
        updatedAt: now,
      };
    });
    const invoice: InvoiceRecord = {
      ...base,
      id: invoiceId,
      status: 'PENDING',
      substatus: null,
      currency: calc.currency,
      price: calc.total.price,
      priceUsd: calc.total.priceUsd,
      customerEmail: input.customerEmail,
      metadata: input.metadata,
      redirectUrl: input.redirectUrl,
      ratesSnapshotId: calc.rates.snapshotId,
      ratesTakenAt: calc.rates.takenAt,
      expiresAt: expiresAtFor(now, input.expiresInMinutes ?? this.config.INVOICE_EXPIRY_MINUTES),
      createdAt: now,
      updatedAt: now,
      ...(period ? { subscriptionId: period.subscriptionId, periodStart: period.periodStart, periodEnd: period.periodEnd } : {}),
    };
    const calculations = buildCalculationRecords(invoice, itemRecords, calculationLines(calc), now);
    // The invoice, its items, its calculation lines and its invoice.created event are one statement:
    // atomic on its own, so without BEGIN and COMMIT unless the request's idempotency claim needs a
    // transaction around it.
    const event = this.events.created(scope, invoice);
    // An invoice of 0: a subscription's period with nothing to charge (a usage-only plan's month without usage,
    // a free plan), or a merchant's order of free products or intents of 0. Nothing can pay it, so it is
    // COMPLETED as it is issued (invoice.updated and invoice.completed follow invoice.created), as Stripe and
    // Lago settle a zero invoice; a period counts as paid.
    const nothingDue = invoice.price.isZero() && invoice.priceUsd.isZero();
    try {
      await this.tx.runAlone(async (m) => {
        await this.repo.insertInvoice(m, invoice, itemRecords, calculations, event);
        await this.events.written(m, event);
        if (nothingDue) {
          const before = this.events.view(invoice);
          await this.repo.updateStatus(m, invoice, 'COMPLETED', null, now);
          await this.events.changed(m, scope, before);
        }
      }, nothingDue);
    } catch (e) {
      // Two instances invoicing one period at once: the unique key kept the first; answer it.
      const existing =
        period && isUniqueViolation(e) ? await this.repo.findSubscriptionPeriod(this.tx.manager, scope, period.subscriptionId, period.periodStart) : null;
      if (existing) return { id: existing, created: false };
      throw e;
    }
    // `created` only for a subscription's period (the HTTP answer of POST /invoices/create stays `{ id }`).
    return period ? { id: invoiceId, created: true } : { id: invoiceId };
  }
}

function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (e as { code?: string }).code;
  return code === '23505';
}
