// The subscriptions module's public surface: the composition root imports only this file.
export { SubscriptionsModule } from './subscriptions.module';
export { SubscriptionScheduler } from './subscription-scheduler';
export { SubscriptionsConfig } from './subscriptions.config';
export {
  SubscriptionEvent,
  SUBSCRIPTION_EVENT_TYPES,
  type SubscriptionEventType,
  SubscriptionInvoiceFailedEvent,
  SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES,
  type SubscriptionInvoiceFailureView,
} from './events/subscription.events';
// Asked and sent by the management console, as the API does.
export { SUBSCRIPTION_STATUSES } from './domain/billing';
export { GetSubscriptionQuery } from './queries/get-subscription/get-subscription.query';
export { ListSubscriptionsQuery } from './queries/list-subscriptions/list-subscriptions.query';
export { UpcomingInvoiceQuery } from './queries/upcoming-invoice/upcoming-invoice.query';
export { CancelSubscriptionCommand } from './commands/cancel-subscription/cancel-subscription.command';
export type { SubscriptionView, SubscriptionPage, UpcomingInvoiceView, UpcomingLineView } from './dto/subscription.view';
