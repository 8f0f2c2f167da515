import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { GetProvidersQuery } from '../../../providers/queries/get-providers/get-providers.query';
import { buildDashboard, DashboardView } from '../../domain/dashboard';
import { keptWindowOf, windowOf } from '../../domain/period';
import { AnalyticsRepository } from '../../persistence/analytics.repository';
import { GetDashboardQuery } from './get-dashboard.query';

@QueryHandler(GetDashboardQuery)
export class GetDashboardHandler implements IQueryHandler<GetDashboardQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AnalyticsRepository) private readonly repo: AnalyticsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, period }: GetDashboardQuery): Promise<DashboardView> {
    const now = this.clock.now();
    const window = windowOf(period, now);
    const kept = keptWindowOf(period);
    const today = now.toISOString().slice(0, 10);
    // The kept day windows end on today: move them first when the day has changed (once a day).
    if (kept && (await this.repo.anchorDay(this.tx.manager, scope)) !== today) {
      await this.tx.run((m) => this.repo.rollWindows(m, scope, today));
    }
    // One statement: one snapshot for every section, so the figures agree with each other.
    const read = await this.repo.dashboard(this.tx.manager, scope, window, kept, today);
    const ids = [...new Set(read.payments.map((p) => p.providerId))];
    const providers = ids.length ? await this.queries.execute(new GetProvidersQuery(scope, ids)) : [];
    const providerNames = new Map(providers.map((p) => [p.catalog.id, p.catalog.name]));
    return buildDashboard({ window, ...read, providerNames });
  }
}
