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
    // One snapshot for every section, so the figures agree with each other.
    const read = await this.tx.manager.transaction('REPEATABLE READ', async (m) => {
      await m.query('SET TRANSACTION READ ONLY');
      const useKept = kept !== null && (await this.repo.anchorDay(m, scope)) === today;
      const payments = useKept ? await this.repo.keptPayments(m, scope, kept) : await this.repo.payments(m, scope, window);
      const invoices = useKept ? await this.repo.keptInvoices(m, scope, kept) : await this.repo.invoices(m, scope, window);
      const series = await this.repo.series(m, scope, window);
      const customers = useKept ? await this.repo.keptCustomers(m, scope, kept, window) : await this.repo.customers(m, scope, window);
      return { payments, invoices, series, customers };
    });
    const ids = [...new Set(read.payments.map((p) => p.providerId))];
    const providers = ids.length ? await this.queries.execute(new GetProvidersQuery(scope, ids)) : [];
    const providerNames = new Map(providers.map((p) => [p.catalog.id, p.catalog.name]));
    return buildDashboard({ window, ...read, providerNames });
  }
}
