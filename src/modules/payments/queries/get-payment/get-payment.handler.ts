import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { PaymentView, paymentView } from '../../dto/payment.views';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { expandProviders } from '../payment-expansion';
import { GetPaymentQuery } from './get-payment.query';

@QueryHandler(GetPaymentQuery)
export class GetPaymentHandler implements IQueryHandler<GetPaymentQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
  ) {}

  async execute({ access, paymentId, expand }: GetPaymentQuery): Promise<PaymentView> {
    const payment = await this.repo.find(this.tx.readsFor(access), access, paymentId);
    if (!payment) throw new NotFoundError('payment');
    const view = paymentView(payment, access === null);
    const scope: Scope = { organizationId: payment.organizationId as Scope['organizationId'], mode: payment.mode };
    if (expand.includes('provider')) await expandProviders(this.queries, scope, [view]);
    return view;
  }
}
