import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { EVENT_EXAMPLE, EventDto, EventListDto, ListEventsRequestDto } from './dto/event.dto';
import { GetEventQuery } from './queries/get-event/get-event.query';
import { ListEventsQuery } from './queries/list-events/list-events.query';
import { ReadOnlyRoute } from '../../shared/db/write-position.interceptor';

@ApiTags('Events')
@Controller('events')
export class EventsController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Post()
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List events',
    description:
      'Every state change of the organization in this mode (invoices, payments, products, files, webhook endpoints), newest first. ' +
      'Each entry has the shape of a webhook delivery body. Filters combine with AND; several `type` values match any of them.',
  })
  @ApiBody({
    type: ListEventsRequestDto,
    required: false,
    examples: {
      all: { summary: 'Newest events', value: { limit: 20, offset: 0 } },
      filtered: { summary: 'Paid invoices in November', value: { type: ['invoice.completed'], created_at_from: '2026-11-01', created_at_to: '2026-11-30' } },
    },
  })
  @ApiEnvelope({
    type: EventListDto,
    example: { items: [EVENT_EXAMPLE], total: 1, total_exact: true, limit: 20, offset: 0, has_more: false },
    message: 'Events listed',
  })
  @ApiErrors(400, 401)
  async list(@RequiredCaller() caller: CallerContext, @Body() body: ListEventsRequestDto) {
    const result = await this.queries.execute(
      new ListEventsQuery(scopeOf(caller), {
        types: body.type,
        createdAtFrom: body.created_at_from,
        createdAtTo: body.created_at_to,
        limit: body.limit,
        offset: body.offset,
      }),
    );
    return reply(result, 'Events listed');
  }

  @Post(':id')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Read one event' })
  @ApiParam({ name: 'id', example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' })
  @ApiEnvelope({ type: EventDto, example: EVENT_EXAMPLE, message: 'Event found' })
  @ApiErrors(401, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetEventQuery(scopeOf(caller), id)), 'Event found');
  }
}
