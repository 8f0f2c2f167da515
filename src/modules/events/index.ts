// The events module's public surface: other modules and the composition root import only this file.
export { EventsModule } from './events.module';
export { GetEventQuery } from './queries/get-event/get-event.query';
export { ListEventsQuery, type EventList, type ListEventsFilter } from './queries/list-events/list-events.query';
export { EVENTS_RETENTION } from './events-retention';
export { EventsConfig, loadEventsConfig } from './events.config';
