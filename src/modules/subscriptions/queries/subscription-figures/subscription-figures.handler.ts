import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import type { Currency } from '../../../../shared/money/currency';
import { Amount, convert, renderAmount, ZERO } from '../../../../shared/money/money';
import { GetSubscriptionFiguresQuery, SubscriptionFigures } from '../../../analytics';
import { RatesAsOfQuery } from '../../../rates';
import { monthlyRecurring } from '../../domain/revenue';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';

/** Answers the dashboard's GetSubscriptionFiguresQuery (analytics asks; subscriptions owns the rows). */
@QueryHandler(GetSubscriptionFiguresQuery)
export class SubscriptionFiguresHandler implements IQueryHandler<GetSubscriptionFiguresQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ scope }: GetSubscriptionFiguresQuery): Promise<SubscriptionFigures> {
    const { counts, recurring } = await this.repo.figures(this.tx.readsFor(scope), scope);
    const byCurrency = new Map<Currency, Amount>();
    for (const r of recurring)
      byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? ZERO).add(monthlyRecurring(r.amount, r.intervalType, r.intervalCount)));
    const rates = byCurrency.size ? await this.queries.execute(new RatesAsOfQuery()) : null;
    const USD = 'USD' as Currency;
    const lines = [...byCurrency.entries()].map(([currency, mrr]) => ({
      currency,
      mrr,
      usd: currency === USD ? mrr : convert(mrr, rates!.usd[currency], rates!.usd[USD]),
    }));
    lines.sort((a, b) => b.usd.comparedTo(a.usd) || a.currency.localeCompare(b.currency));
    return {
      active_count: counts.ACTIVE ?? 0,
      past_due_count: counts.PAST_DUE ?? 0,
      canceled_count: counts.CANCELED ?? 0,
      mrr_usd: renderAmount(lines.reduce((sum, l) => sum.add(l.usd), ZERO)),
      mrr_by_currency: lines.map((l) => ({ currency: l.currency, mrr: renderAmount(l.mrr), mrr_usd: renderAmount(l.usd) })),
    };
  }
}
