// The refunds module's public surface: other modules and the composition root import only this file.
export { RefundsModule } from './refunds.module';
export { RefundsConfig, loadRefundsConfig } from './refunds.config';
export { GetRefundQuery } from './queries/get-refund/get-refund.query';
export { ListRefundsQuery } from './queries/list-refunds/list-refunds.query';
export type { RefundView, RefundPage } from './dto/refund.views';
export { REFUND_STATUSES, type RefundStatus } from './domain/refund-status';
export type { RefundFilter } from './persistence/refunds.repository';
export { RefundEvent, REFUND_EVENT_TYPES, type RefundEventType } from './events/refund.events';
