import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventsConfig, loadEventsConfig } from './events.config';
import { EventsRetention } from './events-retention';
import { EventsRepository } from './persistence/events.repository';
import { GetEventHandler } from './queries/get-event/get-event.handler';
import { ListEventsHandler } from './queries/list-events/list-events.handler';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/** Reads the events the outbox records (the outbox itself is in the shared kernel). */
@Module({
  controllers: [EventsController],
  providers: [
    EventsRepository,
    ListEventsHandler,
    GetEventHandler,
    EventsRetention,
    { provide: EventsConfig, useFactory: () => loadEventsConfig(process.env) },
  ],
})
export class EventsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EventsRepository) private readonly events: EventsRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('event', 'event_not_found', async (scope, id) => (await this.events.find(this.tx.manager, scope, id)) !== null);
  }
}
