// The analytics module's public surface: other modules and the composition root import only this file.
export { AnalyticsModule } from './analytics.module';
export { GetDashboardQuery } from './queries/get-dashboard/get-dashboard.query';
// Asked by the dashboard, answered by the module that owns refunds (the arrow points refunds -> analytics).
export { GetRefundFiguresQuery, type RefundFigures } from './ports/get-refund-figures.query';
// Started by the composition root (main.ts) after the migrations.
export { RollupFolder } from './rollup-folder.service';
