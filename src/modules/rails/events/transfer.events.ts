import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { UnmatchedTransferView } from '../dto/unmatched.views';

/** The rails module's events, published after commit: `transfer.unmatched` (money arrived that no payment records). */
export const TRANSFER_EVENT_TYPES = ['transfer.unmatched'] as const;
export type TransferEventType = (typeof TRANSFER_EVENT_TYPES)[number];

export class TransferEvent extends DomainEvent<TransferEventType, UnmatchedTransferView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const TRANSFER_EVENTS = declareEvents(TransferEvent, TRANSFER_EVENT_TYPES);
