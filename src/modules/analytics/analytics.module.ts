import { Module } from '@nestjs/common';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './persistence/analytics.repository';
import { GetDashboardHandler } from './queries/get-dashboard/get-dashboard.handler';

/**
 * Analytics: the dashboard (POST /analytics/dashboard, GetDashboardQuery on the bus). Its rollups
 * are kept by database triggers on payments and invoices (migration 1763700700000), so no other
 * module calls it and every writer keeps them exact.
 */
@Module({
  controllers: [AnalyticsController],
  providers: [AnalyticsRepository, GetDashboardHandler],
})
export class AnalyticsModule {}
