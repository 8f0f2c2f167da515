import { Audited } from '../../shared/audit/audit-trail';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { Idempotent } from '../../shared/idempotency/idempotency';
import { parseTimeBound } from '../../shared/time/time';
import { CancelSubscriptionCommand } from './commands/cancel-subscription/cancel-subscription.command';
import { CreateSubscriptionCommand } from './commands/create-subscription/create-subscription.command';
import { RecordUsageCommand, UsageEventInput } from './commands/record-usage/record-usage.command';
import {
  CancelSubscriptionRequestDto,
  CreateSubscriptionRequestDto,
  ListSubscriptionsRequestDto,
  UsageBatchRequestDto,
  UsageEventRequestDto,
} from './dto/subscription.request.dto';
import {
  SUBSCRIPTION_EXAMPLE,
  SubscriptionListDto,
  SubscriptionResponseDto,
  UPCOMING_EXAMPLE,
  UpcomingInvoiceDto,
  USAGE_EVENT_EXAMPLE,
  UsageBatchResponseDto,
  UsageEventResponseDto,
} from './dto/subscription.response.dto';
import { GetSubscriptionQuery } from './queries/get-subscription/get-subscription.query';
import { ListSubscriptionsQuery } from './queries/list-subscriptions/list-subscriptions.query';
import { UpcomingInvoiceQuery } from './queries/upcoming-invoice/upcoming-invoice.query';

const PERIODS_TEXT =
  'Periods follow the schema: interval_type x interval_count in UTC (a month from the 31st ends on the last day of a shorter month); ' +
  'ANNIVERSARY periods start at starts_at, CALENDAR ones at UTC calendar boundaries (midnight, Monday, the 1st, January 1st) with a partial first period, ' +
  'charged whole (billing_type FULL) or by its share of the seconds of the whole period (PRORATED). ' +
  "Each period gets one invoice in the schema's currency: ADVANCE at the period's start (base price x quantity, with the usage of the previous period), " +
  "ARREARS at its end (base and the period's usage); usage of each metric is priced by the schema's tiers, graduated (each unit at the price of its tier). " +
  'The invoice carries subscription_id, period_start and period_end.';

@ApiTags('Subscriptions')
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ write: true })
  @Idempotent()
  @ApiOperation({
    summary: 'Start a subscription to a RECURRING billing schema',
    description: `${PERIODS_TEXT} A quantity whose base amount (base_price times quantity) is past 48 integer digits, in the schema's currency or in USD at today's rates, is 400 naming quantity: no period invoice could hold it.`,
  })
  @ApiBody({
    type: CreateSubscriptionRequestDto,
    examples: {
      subscription: {
        value: {
          product_id: SUBSCRIPTION_EXAMPLE.product_id,
          billing_schema_id: SUBSCRIPTION_EXAMPLE.billing_schema_id,
          customer_email: 'jane@example.com',
          customer_name: 'Jane Doe',
          quantity: 1,
          metadata: { plan: 'pro' },
        },
      },
    },
  })
  @ApiEnvelope({ status: 201, type: SubscriptionResponseDto, example: SUBSCRIPTION_EXAMPLE, message: 'Subscription created' })
  @ApiErrors(400, 401, 403, 409)
  async create(@RequiredCaller() caller: CallerContext, @Body() body: CreateSubscriptionRequestDto) {
    const view = await this.commands.execute(
      new CreateSubscriptionCommand(scopeOf(caller), {
        productId: body.product_id,
        billingSchemaId: body.billing_schema_id,
        customerEmail: body.customer_email,
        customerName: body.customer_name ?? null,
        quantity: body.quantity ?? 1,
        startsAt: body.starts_at === undefined ? null : parseTimeBound(body.starts_at, 'from'),
        metadata: body.metadata ?? {},
      }),
    );
    return reply(view, 'Subscription created');
  }

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'List subscriptions, newest first (filters status and customer_email combine with AND)' })
  @ApiEnvelope({
    type: SubscriptionListDto,
    example: { items: [SUBSCRIPTION_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false },
    message: 'Subscriptions retrieved',
  })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListSubscriptionsRequestDto) {
    const page = await this.queries.execute(
      new ListSubscriptionsQuery(scopeOf(caller), { status: query.status, customerEmail: query.customer_email }, query.limit ?? 20, query.offset ?? 0),
    );
    return reply(page, 'Subscriptions retrieved');
  }

  @Get(':id')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Read one subscription' })
  @ApiParam({ name: 'id', description: 'Subscription id' })
  @ApiEnvelope({ type: SubscriptionResponseDto, example: SUBSCRIPTION_EXAMPLE, message: 'Subscription retrieved' })
  @ApiErrors(401, 403, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetSubscriptionQuery(scopeOf(caller), id)), 'Subscription retrieved');
  }

  @Get(':id/upcoming_invoice')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Preview the next period invoice',
    description:
      'The invoice the scheduler will issue at invoice_at, worked out now: usage so far in the period it bills. Nothing is stored. ' +
      'An ADVANCE subscription canceled at period end previews its final invoice: the usage of its last period only, ' +
      'period_start = period_end = invoice_at (its end). ' +
      '404 no_upcoming_invoice when none will be (canceled; or ending at the period end with no other invoice to come: ' +
      'for ADVANCE, while no usage of the last period is priced above 0).',
  })
  @ApiParam({ name: 'id', description: 'Subscription id' })
  @ApiEnvelope({ type: UpcomingInvoiceDto, example: UPCOMING_EXAMPLE, message: 'Upcoming invoice' })
  @ApiErrors(401, 403, 404)
  async upcoming(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new UpcomingInvoiceQuery(scopeOf(caller), id)), 'Upcoming invoice');
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited((body) => (body.at_period_end === true ? 'subscription.cancel_at_period_end' : 'subscription.cancel'))
  @ApiOperation({
    summary: 'Cancel a subscription now or at the end of its current period',
    description:
      'at_period_end true: cancel_at_period_end becomes true and the subscription stays ACTIVE until the current period ends, then CANCELED ' +
      '(ADVANCE issues no invoice for the next period, and bills the usage of the period served in a final usage-only invoice at the end, ' +
      'when that usage is priced above 0; ARREARS still bills the period served). false (default): CANCELED now; nothing more is billed. ' +
      'Canceling a CANCELED subscription is 400 (validator.status).',
  })
  @ApiParam({ name: 'id', description: 'Subscription id' })
  @ApiBody({
    type: CancelSubscriptionRequestDto,
    required: false,
    examples: { at_period_end: { value: { at_period_end: true } }, now: { value: { at_period_end: false } } },
  })
  @ApiEnvelope({ type: SubscriptionResponseDto, example: { ...SUBSCRIPTION_EXAMPLE, cancel_at_period_end: true }, message: 'Subscription canceled' })
  @ApiErrors(400, 401, 403, 404)
  async cancel(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: CancelSubscriptionRequestDto) {
    return reply(await this.commands.execute(new CancelSubscriptionCommand(scopeOf(caller), id, body?.at_period_end === true)), 'Subscription canceled');
  }
}

function usageInput(e: UsageEventRequestDto): UsageEventInput {
  return {
    id: e.id,
    subscriptionId: e.subscription_id,
    metricKey: e.metric_key,
    value: e.value ?? '1',
    uniqueKey: e.unique_key ?? null,
    timestamp: e.timestamp === undefined ? null : parseTimeBound(e.timestamp, 'from'),
  };
}

const USAGE_TEXT =
  "Aggregated per period by the metric's aggregation_type: SUM of values, COUNT of events, MAX value, UNIQUE_COUNT of distinct unique_key (or values), " +
  'LATEST value (by timestamp, then arrival). An event is counted in the period its timestamp falls in; usage of a period whose usage an invoice already billed is refused (400 naming timestamp). ' +
  'A subscription canceled at period end takes no event at or after its current_period_end (400), even before it shows CANCELED.';

@ApiTags('Subscriptions')
@Controller('usage_events')
export class UsageEventsController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ write: true })
  @ApiOperation({
    summary: "Record a usage event of a subscription's metric",
    description: `201 with the event; an id recorded before is 200 with the first record (never counted twice). ${USAGE_TEXT}`,
  })
  @ApiBody({
    type: UsageEventRequestDto,
    examples: {
      usage: {
        value: { id: 'evt_2026_11_27_000123', subscription_id: SUBSCRIPTION_EXAMPLE.id, metric_key: 'api_calls', value: '1', timestamp: '2026-11-27 10:15:00' },
      },
    },
  })
  @ApiEnvelope({ status: 201, type: UsageEventResponseDto, example: USAGE_EVENT_EXAMPLE, message: 'Usage recorded' })
  @ApiErrors(400, 401, 403)
  async record(@RequiredCaller() caller: CallerContext, @Body() body: UsageEventRequestDto) {
    const [result] = await this.commands.execute(new RecordUsageCommand(scopeOf(caller), [usageInput(body)], false));
    return result.created ? reply(result.event, 'Usage recorded') : new EnvelopeReply(result.event, 'Usage already recorded', undefined, 200);
  }

  @Post('batch')
  @HttpCode(200)
  @Authenticated({ write: true })
  @ApiOperation({
    summary: 'Record up to 100 usage events at once',
    description: `All or none: a wrong event is 400 naming events.<i>.<field>. Ids recorded before are left as first recorded (counted in duplicates). ${USAGE_TEXT}`,
  })
  @ApiBody({
    type: UsageBatchRequestDto,
    examples: {
      batch: {
        value: {
          events: [
            { id: 'evt_2026_11_27_000124', subscription_id: SUBSCRIPTION_EXAMPLE.id, metric_key: 'api_calls', value: '3' },
            { id: 'evt_2026_11_27_000125', subscription_id: SUBSCRIPTION_EXAMPLE.id, metric_key: 'active_users', unique_key: 'user_42' },
          ],
        },
      },
    },
  })
  @ApiEnvelope({ type: UsageBatchResponseDto, example: { created: 1, duplicates: 0, items: [USAGE_EVENT_EXAMPLE] }, message: 'Usage recorded' })
  @ApiErrors(400, 401, 403)
  async batch(@RequiredCaller() caller: CallerContext, @Body() body: UsageBatchRequestDto) {
    const results = await this.commands.execute(new RecordUsageCommand(scopeOf(caller), body.events.map(usageInput), true));
    const created = results.filter((r) => r.created).length;
    return reply({ created, duplicates: results.length - created, items: results.map((r) => r.event) }, 'Usage recorded');
  }
}
