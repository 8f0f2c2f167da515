import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { PeriodInvoicer } from '../../billing/period-invoicer';
import { dueAction } from '../../domain/billing';
import type { UpcomingInvoiceView } from '../../dto/subscription.view';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { UpcomingInvoiceQuery } from './upcoming-invoice.query';

@QueryHandler(UpcomingInvoiceQuery)
export class UpcomingInvoiceHandler implements IQueryHandler<UpcomingInvoiceQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(PeriodInvoicer) private readonly invoicer: PeriodInvoicer,
  ) {}

  async execute({ scope, subscriptionId }: UpcomingInvoiceQuery): Promise<UpcomingInvoiceView> {
    return this.tx.readSnapshot(
      scope,
      async (m) => {
        const record = await this.repo.find(m, scope, subscriptionId);
        if (!record) throw new NotFoundError('subscription');
        // An ADVANCE subscription canceled at period end has its final usage invoice to come (none while no usage
        // is priced above zero, or when it ends before its first period).
        const preview =
          record.nextInvoiceAt === null || (dueAction(record.paymentType, record.cancelAtPeriodEnd) === 'end' && record.nextInvoiceIndex === 0)
            ? null
            : await this.invoicer.preview(m, record);
        if (!preview) throw new NotFoundError('upcoming invoice', 'no_upcoming_invoice');
        return preview;
      },
      false,
    );
  }
}
