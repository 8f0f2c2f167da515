import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { scopeOfRow } from '../../commands/refund-events';
import { claimView, RefundClaimView } from '../../dto/refund.views';
import { PayoutMethods } from '../../payout-methods';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { GetRefundClaimQuery } from './get-refund-claim.query';

@QueryHandler(GetRefundClaimQuery)
export class GetRefundClaimHandler implements IQueryHandler<GetRefundClaimQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(PayoutMethods) private readonly methods: PayoutMethods,
  ) {}

  async execute({ token }: GetRefundClaimQuery): Promise<(RefundClaimView & { mode: 'test' | 'live' }) | null> {
    const row = await this.refunds.findByToken(this.tx.manager, token);
    if (!row) return null;
    const methods = row.status === 'AWAITING_DESTINATION' ? await this.methods.forInvoice(scopeOfRow(row), row.invoice_id) : [];
    return { ...claimView(row, methods), mode: row.mode };
  }
}
