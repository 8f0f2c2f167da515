import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';

/** The files module's events, published after commit: `file.created`, `file.deleted` (the file as its endpoint renders it). */
export const FILE_EVENT_TYPES = ['file.created', 'file.deleted'] as const;
export type FileEventType = (typeof FILE_EVENT_TYPES)[number];

export class FileEvent extends DomainEvent<FileEventType, Record<string, unknown>> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const FILE_EVENTS = declareEvents(FileEvent, FILE_EVENT_TYPES);
