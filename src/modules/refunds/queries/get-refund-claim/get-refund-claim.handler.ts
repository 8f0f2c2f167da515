import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { GetInvoiceQuery } from '../../../invoices';
import { ClaimContextView, GetPayoutClaimQuery, ListPayoutMethodsQuery, PayoutClaimState } from '../../../payouts';
import { scopeOfRow } from '../../commands/refund-events';
import { claimView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';

/** Answers payouts' claim page (GetPayoutClaimQuery): a refund as its payer sees it through the claim token. */
@QueryHandler(GetPayoutClaimQuery)
export class GetRefundClaimHandler implements IQueryHandler<GetPayoutClaimQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ token }: GetPayoutClaimQuery): Promise<PayoutClaimState | null> {
    const row = await this.refunds.findByToken(this.tx.readsFor(null), token);
    if (!row) return null;
    const scope = scopeOfRow(row);
    const methods = row.status === 'AWAITING_DESTINATION' ? await this.queries.execute(new ListPayoutMethodsQuery(scope, row.invoice_id)) : [];
    // The merchant's name and the invoice's items through the invoice read (as the checkout page shows
    // them): refunds does not read organizations itself. Only the fields a payer sees anyway are kept.
    const invoice = await this.queries.execute(new GetInvoiceQuery(scope, row.invoice_id, ['items', 'items.product', 'organization'], null));
    const context: ClaimContextView = {
      merchant: { name: invoice.organization?.name ?? '' },
      invoice: {
        id: invoice.id,
        items: (invoice.items ?? []).map((i) => ({ name: (i.product as { name?: string } | null | undefined)?.name ?? null, quantity: i.quantity })),
      },
    };
    return { ...claimView(row, methods), ...context, mode: row.mode };
  }
}
