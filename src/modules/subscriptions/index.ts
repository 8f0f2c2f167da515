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
