// The analytics module's public surface: other modules and the composition root import only this file.
export { AnalyticsModule } from './analytics.module';
export { GetDashboardQuery } from './queries/get-dashboard/get-dashboard.query';
// Asked by the dashboard, answered by the modules that own refunds and subscriptions (their arrows point
// to analytics; analytics imports neither).
export { GetRefundFiguresQuery, type RefundFigures } from './ports/get-refund-figures.query';
export { GetSubscriptionFiguresQuery, type SubscriptionFigures } from './ports/get-subscription-figures.query';
// Its settings (checked by the composition root at start); its folder starts itself after the migrations.
export { AnalyticsConfig, loadAnalyticsConfig } from './analytics.config';
