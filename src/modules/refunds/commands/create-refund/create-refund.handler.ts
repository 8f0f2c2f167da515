import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ConflictError, NotFoundError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { fromDb, renderAmount } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { GetPayableInvoiceQuery } from '../../../invoices';
import { InvoicePaymentValuesQuery } from '../../../payments';
import { newClaimToken } from '../../../payouts';
import { KeepRatesSnapshotCommand, RatesAsOfQuery, RatesSnapshotGoneError } from '../../../rates';
import { paidAtSnapshot, planRefund, refundableUsd } from '../../domain/refund-amounts';
import { claimExpiresAt } from '../../domain/refund-expiry';
import { RefundView, refundView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents } from '../refund-events';
import { CreateRefundCommand } from './create-refund.command';

/** A payment completed between the choice of the refund's rates and its lock: the rates are chosen again. */
class PaidAtMovedError extends Error {}

@CommandHandler(CreateRefundCommand)
export class CreateRefundHandler implements ICommandHandler<CreateRefundCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  /**
   * Rates chosen again (nothing written) when their day of history went between their choice and the
   * refund's transaction, or when a payment completed in between and the invoice is now paid at others.
   */
  async execute(command: CreateRefundCommand): Promise<RefundView> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.create(command);
      } catch (e) {
        if (!(e instanceof RatesSnapshotGoneError || e instanceof PaidAtMovedError)) throw e;
        // Payments still completing at other rates after three tries: the client's to retry (409), not a 500.
        if (attempt >= 3)
          throw e instanceof PaidAtMovedError ? new ConflictError('The invoice was being paid while the refund was made; retry', 'concurrent_update') : e;
      }
    }
  }

  private async create({ scope, invoiceId, input }: CreateRefundCommand): Promise<RefundView> {
    const invoice = await this.queries.execute(new GetPayableInvoiceQuery(scope, invoiceId));
    if (!invoice) throw new NotFoundError('invoice');
    const currency = input.currency ?? invoice.currency;
    // `invoice`: the snapshot the invoice was paid at (its last completed payment's, which within the
    // rate lock is the invoice's own; read again under the refund's lock below); `current`: the one in force now.
    const paidAt =
      input.rate === 'invoice' ? paidAtSnapshot(await this.queries.execute(new InvoicePaymentValuesQuery(scope, invoice.id)), invoice.ratesSnapshotId) : null;
    const rates =
      paidAt !== null
        ? await this.queries.execute(new RatesAsOfQuery(undefined, paidAt))
        : input.rate === 'invoice'
          ? await this.queries.execute(new RatesAsOfQuery(invoice.ratesTakenAt ?? invoice.updatedAt))
          : // Live mode: today's rates must be fresh where live sources feed them (else 503 rates_unavailable), as for a new invoice.
            await this.queries.execute(new RatesAsOfQuery(undefined, undefined, scope.mode === 'live' ? [currency] : undefined));
    const rateUsd = rates.usd[currency];

    // Everything below runs on the transaction's one connection (its manager `m`, also handed to the
    // payments query): holding the lock while waiting for a second connection from the pool would
    // let as many refunds as the pool has connections wait on one another.
    return this.tx.run(async (m) => {
      // First, before the refund's lock: rates from a day of history that may go soon (an invoice's of a month ago) are kept with the refund.
      await this.commands.execute(new KeepRatesSnapshotCommand(m, rates.snapshotId));
      // One refund of an invoice at a time: two at once must not both take the same refundable amount.
      await this.refunds.lockInvoiceRefunds(m, scope, invoice.id);
      const payments = await this.queries.execute(new InvoicePaymentValuesQuery(scope, invoice.id, m));
      if (input.rate === 'invoice' && paidAtSnapshot(payments, invoice.ratesSnapshotId) !== paidAt) throw new PaidAtMovedError();
      const held = await this.refunds.ofInvoice(m, scope, invoice.id);
      const refundable = refundableUsd(
        payments,
        held.map((r) => ({ status: r.status, amountUsd: fromDb(r.amount_usd) })),
      );
      const plan = planRefund({ amount: input.amount, currency, rateUsd, refundableUsd: refundable });
      const now = await this.clock.nowFor(scope, m);
      const row = await this.refunds.insert(
        m,
        {
          id: newId('refund'),
          organization_id: scope.organizationId,
          mode: scope.mode,
          invoice_id: invoice.id,
          currency,
          amount: renderAmount(plan.amount),
          amount_usd: renderAmount(plan.amountUsd),
          rate: input.rate,
          rate_usd: renderAmount(rateUsd),
          rates_snapshot_id: rates.snapshotId,
          reason: input.reason,
          claim_token: newClaimToken(),
          expires_at: claimExpiresAt(now, input.expiresInMinutes),
        },
        now,
      );
      await this.events.created(m, row);
      return refundView(row);
    });
  }
}
