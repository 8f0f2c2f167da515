import { Module } from '@nestjs/common';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './persistence/analytics.repository';
import { RollupFolder } from './rollup-folder.service';
import { AnalyticsConfig, loadAnalyticsConfig } from './analytics.config';
import { GetDashboardHandler } from './queries/get-dashboard/get-dashboard.handler';

/**
 * Analytics: the dashboard (POST /analytics/dashboard, GetDashboardQuery on the bus). Its rollups
 * are kept by database triggers on payments and invoices (migration 1763700700000), which append
 * each change for RollupFolder (and the dashboard itself) to fold in (1763702000000), so no other
 * module calls it and every writer keeps them exact.
 */
@Module({
  controllers: [AnalyticsController],
  providers: [AnalyticsRepository, GetDashboardHandler, RollupFolder, { provide: AnalyticsConfig, useFactory: () => loadAnalyticsConfig(process.env) }],
  exports: [RollupFolder],
})
export class AnalyticsModule {}
