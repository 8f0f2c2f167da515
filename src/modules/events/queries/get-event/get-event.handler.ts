import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { EventPayload, renderEvent } from '../../../../shared/events/event-payload';
import { EventsRepository } from '../../persistence/events.repository';
import { GetEventQuery } from './get-event.query';

@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EventsRepository) private readonly events: EventsRepository,
  ) {}

  async execute({ scope, eventId }: GetEventQuery): Promise<EventPayload> {
    const event = await this.events.find(this.tx.readsFor(scope), scope, eventId);
    if (!event) throw new NotFoundError('event');
    return renderEvent(event);
  }
}
