import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { boundedListFields } from '../../../../shared/db/bounded-count';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { renderEvent } from '../../../../shared/events/event-payload';
import { parseTimeBound } from '../../../../shared/time/time';
import { EventsRepository } from '../../persistence/events.repository';
import { EventList, ListEventsQuery } from './list-events.query';

export const DEFAULT_LIMIT = 20;

@QueryHandler(ListEventsQuery)
export class ListEventsHandler implements IQueryHandler<ListEventsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EventsRepository) private readonly events: EventsRepository,
  ) {}

  async execute({ scope, filter }: ListEventsQuery): Promise<EventList> {
    const limit = filter.limit ?? DEFAULT_LIMIT;
    const offset = filter.offset ?? 0;
    const { items, total, exact } = await this.events.list(this.tx.readsFor(scope), scope, {
      types: filter.types,
      objectIds: filter.objectIds,
      createdFrom: filter.createdAtFrom ? (parseTimeBound(filter.createdAtFrom, 'from') ?? undefined) : undefined,
      createdTo: filter.createdAtTo ? (parseTimeBound(filter.createdAtTo, 'to') ?? undefined) : undefined,
      limit,
      offset,
    });
    return { items: items.map(renderEvent), ...boundedListFields({ limit, offset, shown: items.length }, { total, exact }) };
  }
}
