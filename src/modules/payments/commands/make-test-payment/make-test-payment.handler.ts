import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { renderAmount, sumAmounts } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { GetPayableInvoiceQuery, isFinalInvoiceStatus, PayableInvoice } from '../../../invoices';
import { GetProviderTermsQuery } from '../../../providers';
import { RatesAsOfQuery } from '../../../rates';
import { agreedRatesSnapshot } from '../../domain/agreed-rates';
import { testPaymentPrice } from '../../domain/test-payment';
import type { PaymentRecord } from '../../persistence/payment.record';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { DueChanged, RecordProviderPaymentCommand } from '../record-provider-payment/record-provider-payment.command';
import { MakeTestPaymentCommand, TestPaymentView } from './make-test-payment.command';

/** The payment's own idempotency key: per invoice, so a payer's key never meets a merchant's. */
const storedKey = (invoiceId: string, key: string) => `test_payment:${invoiceId}:${key}`;

@CommandHandler(MakeTestPaymentCommand)
export class MakeTestPaymentHandler implements ICommandHandler<MakeTestPaymentCommand> {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: MakeTestPaymentCommand): Promise<TestPaymentView> {
    // Another payment or a currency change between the pricing and the invoice's lock: priced again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pay(command);
      } catch (e) {
        if (!(e instanceof DueChanged)) throw e;
        if (attempt >= 3) throw new ConflictError('The invoice changed while the payment was made; retry', 'concurrent_update');
      }
    }
  }

  private async pay({ access, invoiceId, providerId, kind, idempotencyKey }: MakeTestPaymentCommand): Promise<TestPaymentView> {
    const invoice = await this.queries.execute(new GetPayableInvoiceQuery(access, invoiceId));
    // Live invoices take no simulated payment: they answer as if they did not exist.
    if (!invoice || invoice.mode !== 'test') throw new NotFoundError('invoice');
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };

    const provider = await this.queries.execute(new GetProviderTermsQuery(scope, providerId));
    if (!provider) throw new ValidationFailedError({ provider_id: `unknown provider "${providerId}"` }, undefined, 'unknown_provider');
    const catalog = provider.catalog;
    if (!provider.enabled) {
      throw new ValidationFailedError({ provider_id: `${catalog.id} is disabled for this organization` }, undefined, 'provider_disabled');
    }

    const key = idempotencyKey === null ? null : storedKey(invoice.id, idempotencyKey);
    const payments = await this.repo.forInvoice(this.tx.manager, scope, invoice.id);
    const earlier = key === null ? undefined : payments.find((p) => p.idempotencyKey === key);
    if (earlier) return this.repeated(earlier, invoice, kind);
    if (isFinalInvoiceStatus(invoice.status)) {
      throw new ValidationFailedError({ id: `the invoice is ${invoice.status}; it takes no new payments` }, undefined, 'invoice_final');
    }

    // What is still due: the price less the payments completed or waiting for confirmations (as the deposit address asks).
    const seenUsd = sumAmounts(payments.filter((p) => p.status === 'COMPLETED' || p.status === 'PENDING').map((p) => p.priceUsd));
    const dueUsd = invoice.priceUsd.minus(seenUsd);
    if (dueUsd.lte(0)) {
      throw new ValidationFailedError({ id: 'nothing is due: the payments seen already cover the invoice' }, undefined, 'nothing_due');
    }
    // Priced at the rates it is valued at: the payment happens at `now`, so the invoice's own while its rate
    // lock holds (agreedRatesSnapshot), else those in force now.
    const now = await this.clock.nowFor(scope);
    const agreed = agreedRatesSnapshot(invoice, now);
    const rates = await this.queries.execute(agreed === null ? new RatesAsOfQuery(now) : new RatesAsOfQuery(undefined, agreed));
    const price = testPaymentPrice(kind, dueUsd, rates.usd[catalog.currency], catalog.decimals);

    try {
      const recorded = await this.commands.execute(
        new RecordProviderPaymentCommand(scope, {
          kind: 'payment',
          invoiceId: invoice.id,
          providerId: catalog.id,
          price: price.toFixed(),
          status: 'COMPLETED',
          idempotencyKey: key,
          happenedAt: now,
          whileDue: { priceUsd: invoice.priceUsd, seenUsd },
        }),
      );
      return {
        id: recorded.paymentId,
        kind,
        provider_id: catalog.id,
        currency: catalog.currency,
        price: renderAmount(price),
        status: recorded.status,
        created: recorded.created,
        invoice: { id: invoice.id, status: recorded.invoice.status, substatus: recorded.invoice.substatus },
      };
    } catch (e) {
      // The same key sent twice at once, the first paying between this one's reads: answer the first.
      if (!(key !== null && e instanceof ValidationFailedError && e.fields?.idempotency_key !== undefined)) throw e;
      const first = (await this.repo.forInvoice(this.tx.manager, scope, invoice.id)).find((p) => p.idempotencyKey === key);
      if (!first) throw e;
      const current = await this.queries.execute(new GetPayableInvoiceQuery(scope, invoice.id));
      return this.repeated(first, current ?? invoice, kind);
    }
  }

  /** A payment this key made before, with the invoice as it stands now. */
  private repeated(payment: PaymentRecord, invoice: PayableInvoice, kind: MakeTestPaymentCommand['kind']): TestPaymentView {
    return {
      id: payment.id,
      kind,
      provider_id: payment.providerId,
      currency: payment.currency,
      price: renderAmount(payment.price),
      status: payment.status,
      created: false,
      invoice: { id: invoice.id, status: invoice.status, substatus: invoice.substatus },
    };
  }
}
