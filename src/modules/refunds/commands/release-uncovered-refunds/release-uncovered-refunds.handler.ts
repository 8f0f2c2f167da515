import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { fromDb, Money, renderAmount } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { InvoicePaymentValuesQuery } from '../../../payments';
import { refundsToRelease } from '../../domain/refund-amounts';
import { canMoveRefund } from '../../domain/refund-status';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents } from '../refund-events';
import { ReleaseUncoveredRefundsCommand } from './release-uncovered-refunds.command';

@CommandHandler(ReleaseUncoveredRefundsCommand)
export class ReleaseUncoveredRefundsHandler implements ICommandHandler<ReleaseUncoveredRefundsCommand> {
  private readonly logger = new Logger('Refunds');

  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, invoiceId, manager: m }: ReleaseUncoveredRefundsCommand): Promise<string[]> {
    // Under the invoice's refund lock, as a new refund takes its amount: none is made from the same cover meanwhile.
    await this.refunds.lockInvoiceRefunds(m, scope, invoiceId);
    const payments = await this.queries.execute(new InvoicePaymentValuesQuery(scope, invoiceId, m));
    const canceled: string[] = [];
    const skipped = new Set<string>();
    const now = await this.clock.nowFor(scope, m);
    let uncovered = new Money(0);
    // One at a time, planned again after each: a refund sent meanwhile (its report does not take the invoice's
    // lock) is skipped, and the next open one goes in its place while the rest is still not covered.
    for (;;) {
      const held = await this.refunds.heldOfInvoice(m, scope, invoiceId);
      const plan = refundsToRelease(
        payments,
        held.map((r) => ({ id: r.id, status: r.status, amountUsd: fromDb(r.amount_usd), createdAt: r.created_at })),
      );
      uncovered = plan.uncovered;
      const next = plan.release.find((id) => !canceled.includes(id) && !skipped.has(id));
      if (next === undefined) break;
      const before = await this.refunds.find(m, scope, next, true);
      if (!before || !canMoveRefund(before.status, 'CANCELED')) {
        skipped.add(next);
        continue;
      }
      const after = await this.refunds.setStatus(m, before, 'CANCELED', now);
      await this.events.changed(m, before, after);
      canceled.push(next);
    }
    if (canceled.length) {
      this.logger.warn({
        msg: 'refunds canceled: a payment they refunded was taken back, and the invoice no longer has the money',
        event: 'refunds_canceled_payment_reversed',
        organization_id: scope.organizationId,
        mode: scope.mode,
        invoice_id: invoiceId,
        refund_ids: canceled,
      });
    }
    if (uncovered.greaterThan(0)) {
      // Sent or completed refunds beyond what the invoice now holds: the money may have left; the merchant's to settle.
      this.logger.error({
        msg: 'refunds already sent exceed what the invoice was paid after a payment was taken back',
        event: 'refunds_exceed_paid_after_reversal',
        organization_id: scope.organizationId,
        mode: scope.mode,
        invoice_id: invoiceId,
        uncovered_usd: renderAmount(uncovered),
      });
    }
    return canceled;
  }
}
