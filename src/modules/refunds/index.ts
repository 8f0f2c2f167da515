// The refunds module's public surface: other modules and the composition root import only this file.
export { RefundsModule } from './refunds.module';
export { GetRefundQuery } from './queries/get-refund/get-refund.query';
export { ListRefundsQuery } from './queries/list-refunds/list-refunds.query';
export type { RefundView, RefundPage } from './dto/refund.views';
export { REFUND_STATUSES, type RefundStatus } from './domain/refund-status';
export type { RefundFilter } from './persistence/refunds.repository';
export { RefundEvent, REFUND_EVENT_TYPES, type RefundEventType } from './events/refund.events';
// Sent by the management console (a member's refund of an invoice, and its cancellation), as the API sends them.
export { CreateRefundCommand, type CreateRefundInput } from './commands/create-refund/create-refund.command';
export { CancelRefundCommand } from './commands/cancel-refund/cancel-refund.command';
