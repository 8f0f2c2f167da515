import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { ExpireDueClaimsCommand } from '../../../payouts';
import { claimOpen } from '../../domain/refund-expiry';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents } from '../refund-events';

/**
 * Answers the payout worker's ExpireDueClaimsCommand (payouts' port): refunds past their claim's time
 * without a destination become EXPIRED (refund.updated), a moved test clock counting. The batch is
 * fair (at most `cap` per organization and mode); each refund is locked and re-checked at its
 * organization's own now, so one still open there goes to the back of its organization's line.
 */
@CommandHandler(ExpireDueClaimsCommand)
export class ExpireClaimsHandler implements ICommandHandler<ExpireDueClaimsCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ cap, limit }: ExpireDueClaimsCommand): Promise<void> {
    const moved = await this.clock.movedScopes();
    const ahead = Math.max(0, ...moved.map((s) => s.offsetMs));
    const due = await this.refunds.expiredClaims(this.tx.manager, new Date(this.clock.now().getTime() + ahead), cap, limit);
    for (const { id, organization_id, mode } of due) {
      const scope = { organizationId: organization_id as never, mode };
      await this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, id, true);
        const now = await this.clock.nowFor(scope, m);
        if (!before || before.status !== 'AWAITING_DESTINATION' || claimOpen(before.expires_at, now)) return;
        const after = await this.refunds.setStatus(m, before, 'EXPIRED', now);
        await this.events.changed(m, before, after);
      });
    }
  }
}
