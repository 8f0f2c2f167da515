import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventsRepository } from './persistence/events.repository';
import { GetEventHandler } from './queries/get-event/get-event.handler';
import { ListEventsHandler } from './queries/list-events/list-events.handler';

/** Reads the events the outbox records (the outbox itself is in the shared kernel). */
@Module({
  controllers: [EventsController],
  providers: [EventsRepository, ListEventsHandler, GetEventHandler],
})
export class EventsModule {}
