import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvalidStateTransitionError, NotFoundError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { DuePeriods } from '../../billing/due-periods';
import { subscriptionView, SubscriptionView } from '../../dto/subscription.view';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { SubscriptionEvents } from '../subscription-events';
import { CancelSubscriptionCommand } from './cancel-subscription.command';

@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(SubscriptionEvents) private readonly events: SubscriptionEvents,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DuePeriods) private readonly due: DuePeriods,
  ) {}

  async execute({ scope, subscriptionId, atPeriodEnd }: CancelSubscriptionCommand): Promise<SubscriptionView> {
    const now = await this.clock.nowFor(scope);
    return this.tx.run(async (m) => {
      const record = await this.repo.find(m, scope, subscriptionId, true);
      if (!record) throw new NotFoundError('subscription');
      if (record.status === 'CANCELED') throw new InvalidStateTransitionError('subscription', 'CANCELED', 'CANCELED', []);
      // Periods already due that the scheduler has not reached (its next tick, or a backlog on the 1st of the
      // month) are recorded first, as it would have, for a cancel now and a cancel at period end alike: what a
      // request finds due is billed (or ended) as if the scheduler had come first.
      while (record.nextInvoiceAt !== null && record.nextInvoiceAt.getTime() <= now.getTime()) {
        // Canceled at a period end already past: ended before this request, as the scheduler will record.
        if (await this.due.advance(m, record)) throw new InvalidStateTransitionError('subscription', 'CANCELED', 'CANCELED', []);
      }
      const before = subscriptionView(record);
      if (atPeriodEnd) {
        // Asking twice changes nothing (and records no event).
        record.cancelAtPeriodEnd = true;
      } else {
        record.status = 'CANCELED';
        record.canceledAt = now;
        record.cancelAtPeriodEnd = false;
        record.nextInvoiceAt = null;
      }
      if (JSON.stringify(before) === JSON.stringify(subscriptionView(record))) return before;
      record.updatedAt = now;
      await this.repo.save(m, record);
      await this.events.changed(m, scope, before, record);
      return subscriptionView(record);
    });
  }
}
