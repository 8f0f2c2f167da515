import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { fromDb, renderAmount } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { findCatalogProvider } from '../../../providers';
import { buildDashboard, DashboardRead, DashboardView } from '../../domain/dashboard';
import { currentWindowOf, keptWindowOf } from '../../domain/period';
import { AnalyticsRepository } from '../../persistence/analytics.repository';
import { GetRefundFiguresQuery } from '../../ports/get-refund-figures.query';
import { GetSubscriptionFiguresQuery } from '../../ports/get-subscription-figures.query';
import { GetDashboardQuery } from './get-dashboard.query';

/** Providers are named from the catalog, which is data shipped with the service (no database read). */
const providerName = (id: string): string => findCatalogProvider(id)?.name ?? id;

@QueryHandler(GetDashboardQuery)
export class GetDashboardHandler implements IQueryHandler<GetDashboardQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AnalyticsRepository) private readonly repo: AnalyticsRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ scope, period }: GetDashboardQuery): Promise<DashboardView> {
    const now = await this.clock.nowFor(scope);
    const window = currentWindowOf(period, now);
    const kept = keptWindowOf(period);
    const m = this.tx.readsFor(scope);
    // One statement: one snapshot for every section, so the figures agree with each other.
    let read: DashboardRead | null = null;
    if (kept) {
      const today = now.toISOString().slice(0, 10);
      read = await this.repo.keptDashboard(m, scope, window, kept, today);
      if (!read) {
        // The kept day windows end on an earlier day (the first call of a new day) or are not built
        // yet: move them to today, then read them.
        await this.tx.run((t) => this.repo.rollWindows(t, scope, today));
        // Read where the windows were just moved: a replica may not have replayed that yet.
        read = await this.repo.keptDashboard(this.tx.manager, scope, window, kept, today);
      }
    }
    // Hourly periods, and a day window moved away again at once (a rebuild in between): sum the buckets.
    read ??= await this.repo.summedDashboard(m, scope, window);
    const view = buildDashboard({ window, read, providerName });
    // Refunds net out of the volume in the window they complete in (as a payment counts when it happens).
    const [refunds, subscriptions] = await Promise.all([
      this.queries.execute(new GetRefundFiguresQuery(scope, window.from, window.to)),
      this.queries.execute(new GetSubscriptionFiguresQuery(scope)),
    ]);
    view.refunds = { count: refunds.count, completed_count: refunds.completedCount, refunded_usd: renderAmount(fromDb(refunds.refundedUsd)) };
    view.net_volume_usd = renderAmount(fromDb(view.payments.volume_usd).sub(fromDb(refunds.refundedUsd)));
    view.subscriptions = subscriptions;
    return view;
  }
}
