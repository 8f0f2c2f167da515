import { Audited } from '../../shared/audit/audit-trail';
import { Idempotent } from '../../shared/idempotency/idempotency';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { CreateWebhookEndpointCommand } from './commands/create-webhook-endpoint/create-webhook-endpoint.command';
import { DeleteWebhookEndpointCommand } from './commands/delete-webhook-endpoint/delete-webhook-endpoint.command';
import { RedeliverEventCommand } from './commands/redeliver-event/redeliver-event.command';
import { RotateWebhookSecretCommand } from './commands/rotate-webhook-secret/rotate-webhook-secret.command';
import { UpdateWebhookEndpointCommand } from './commands/update-webhook-endpoint/update-webhook-endpoint.command';
import {
  ATTEMPT_EXAMPLE,
  CreateWebhookRequestDto,
  DeletedWebhookDto,
  ENDPOINT_EXAMPLE,
  ListAttemptsRequestDto,
  ListWebhooksQueryDto,
  QueuedDeliveryDto,
  RedeliverRequestDto,
  RotateSecretRequestDto,
  UpdateWebhookRequestDto,
  WebhookAttemptListDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook.dto';
import { GetWebhookEndpointQuery } from './queries/get-webhook-endpoint/get-webhook-endpoint.query';
import { ListWebhookAttemptsQuery } from './queries/list-webhook-attempts/list-webhook-attempts.query';
import { ListWebhookEndpointsQuery } from './queries/list-webhook-endpoints/list-webhook-endpoints.query';

const ID_PARAM = ApiParam({ name: 'id', example: 'webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' });
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ write: true })
  @Audited('webhook.create')
  @Idempotent()
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description:
      "Events of the key's organization and mode whose type is listed (or all, with `*`) are POSTed to `url`, signed as the Standard Webhooks " +
      'specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing `secret` is returned only in this answer and on rotation. ' +
      'An organization has at most 16 endpoints per mode (deleted ones do not count): a 17th is 400 `too_many_endpoints` naming `url`.',
  })
  @ApiBody({
    type: CreateWebhookRequestDto,
    examples: {
      some: {
        summary: 'Payment and invoice events',
        value: {
          url: 'https://merchant.example.com/webhooks',
          event_types: ['payment.created', 'payment.updated', 'invoice.completed'],
          description: 'Order fulfilment',
        },
      },
      all: { summary: 'Every event', value: { url: 'https://merchant.example.com/webhooks', event_types: '*' } },
    },
  })
  @ApiEnvelope({
    status: 201,
    type: WebhookEndpointWithSecretDto,
    example: { ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE },
    message: 'Webhook endpoint created',
  })
  @ApiErrors(400, 401, 403)
  async create(@RequiredCaller() caller: CallerContext, @Body() body: CreateWebhookRequestDto) {
    const created = await this.commands.execute(
      new CreateWebhookEndpointCommand(scopeOf(caller), {
        url: body.url,
        eventTypes: body.event_types,
        description: body.description,
        enabled: body.enabled,
      }),
    );
    return reply(created, 'Webhook endpoint created');
  }

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'List webhook endpoints', description: 'Newest first; secrets are never listed.' })
  @ApiEnvelope({
    type: WebhookEndpointListDto,
    example: { items: [ENDPOINT_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false },
    message: 'Webhook endpoints listed',
  })
  @ApiErrors(400, 401)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListWebhooksQueryDto) {
    return reply(await this.queries.execute(new ListWebhookEndpointsQuery(scopeOf(caller), query.limit ?? 20, query.offset ?? 0)), 'Webhook endpoints listed');
  }

  @Get(':id')
  @HttpCode(200)
  @Authenticated()
  @ID_PARAM
  @ApiOperation({ summary: 'Read a webhook endpoint' })
  @ApiEnvelope({ type: WebhookEndpointDto, example: ENDPOINT_EXAMPLE, message: 'Webhook endpoint found' })
  @ApiErrors(401, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetWebhookEndpointQuery(scopeOf(caller), id)), 'Webhook endpoint found');
  }

  @Put(':id')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('webhook.update')
  @ID_PARAM
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description:
      'Only the fields sent change. `enabled: true` re-enables an endpoint disabled after failures (its failure count starts again); ' +
      '`enabled: false` pauses it and cancels its pending deliveries.',
  })
  @ApiBody({
    type: UpdateWebhookRequestDto,
    examples: {
      reenable: { summary: 'Re-enable after failures', value: { enabled: true } },
      change: { summary: 'New URL and types', value: { url: 'https://merchant.example.com/webhooks/v2', event_types: ['invoice.completed'] } },
    },
  })
  @ApiEnvelope({ type: WebhookEndpointDto, example: ENDPOINT_EXAMPLE, message: 'Webhook endpoint updated' })
  @ApiErrors(400, 401, 403, 404)
  async update(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: UpdateWebhookRequestDto) {
    const updated = await this.commands.execute(
      new UpdateWebhookEndpointCommand(scopeOf(caller), id, {
        url: body.url,
        eventTypes: body.event_types,
        description: body.description,
        enabled: body.enabled,
      }),
    );
    return reply(updated, 'Webhook endpoint updated');
  }

  @Delete(':id')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('webhook.delete')
  @ID_PARAM
  @ApiOperation({ summary: 'Delete a webhook endpoint', description: 'Nothing more is sent to it; its pending deliveries are cancelled.' })
  @ApiEnvelope({ type: DeletedWebhookDto, example: { id: ENDPOINT_EXAMPLE.id, deleted: true }, message: 'Webhook endpoint deleted' })
  @ApiErrors(401, 403, 404)
  async remove(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.commands.execute(new DeleteWebhookEndpointCommand(scopeOf(caller), id)), 'Webhook endpoint deleted');
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Idempotent()
  @Audited('webhook.rotate_secret')
  @ID_PARAM
  @ApiOperation({
    summary: 'Issue a new signing secret',
    description:
      'Returns the new secret once. With `grace_period_seconds`, deliveries also carry a signature made with the old secret until the period ends. ' +
      'Send an `Idempotency-Key` so a retried request (a timeout) answers the first rotation again, sealed, instead of rotating twice and dropping the secret your receivers still use.',
  })
  @ApiBody({
    type: RotateSecretRequestDto,
    required: false,
    examples: {
      now: { summary: 'Old secret stops at once', value: {} },
      grace: { summary: 'Old secret also signs for a day', value: { grace_period_seconds: 86400 } },
    },
  })
  @ApiEnvelope({ type: WebhookEndpointWithSecretDto, example: { ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }, message: 'Signing secret rotated' })
  @ApiErrors(400, 401, 403, 404)
  async rotate(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: RotateSecretRequestDto) {
    return reply(await this.commands.execute(new RotateWebhookSecretCommand(scopeOf(caller), id, body.grace_period_seconds ?? 0)), 'Signing secret rotated');
  }

  @Post(':id/attempts')
  @HttpCode(200)
  @Authenticated()
  @ID_PARAM
  @ApiOperation({
    summary: 'List delivery attempts to an endpoint',
    description: 'Newest first, with the answer status, the start of the answer body or the failure reason.',
  })
  @ApiBody({
    type: ListAttemptsRequestDto,
    required: false,
    examples: { all: { value: { limit: 20, offset: 0 } }, event: { summary: 'One event', value: { event_id: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' } } },
  })
  @ApiEnvelope({
    type: WebhookAttemptListDto,
    example: { items: [ATTEMPT_EXAMPLE], total: 1, total_exact: true, limit: 20, offset: 0, has_more: false },
    message: 'Webhook attempts listed',
  })
  @ApiErrors(400, 401, 404)
  async attempts(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: ListAttemptsRequestDto) {
    const result = await this.queries.execute(
      new ListWebhookAttemptsQuery(scopeOf(caller), id, { eventId: body.event_id, limit: body.limit, offset: body.offset }),
    );
    return reply(result, 'Webhook attempts listed');
  }

  @Post(':id/redeliver')
  @HttpCode(202)
  @Authenticated({ write: true })
  @Audited('webhook.resend')
  @ID_PARAM
  @ApiOperation({
    summary: 'Send an event to the endpoint again',
    description:
      'Queues a new delivery of the event (same `webhook-id`, so receivers can recognise it), with its own retries. Only an event of a type the endpoint receives (its `event_types`) is sent: another is 400 `event_type_not_enabled`; a disabled endpoint is 400 `webhook_endpoint_disabled`.',
  })
  @ApiBody({ type: RedeliverRequestDto, examples: { event: { value: { event_id: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' } } } })
  @ApiEnvelope({
    status: 202,
    type: QueuedDeliveryDto,
    message: 'Redelivery queued',
    example: {
      delivery_id: 'delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
      endpoint_id: ENDPOINT_EXAMPLE.id,
      event_id: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
      status: 'pending',
      created_at: '2026-11-21 10:00:00',
    },
  })
  @ApiErrors(400, 401, 403, 404)
  async redeliver(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: RedeliverRequestDto) {
    return reply(await this.commands.execute(new RedeliverEventCommand(scopeOf(caller), id, body.event_id)), 'Redelivery queued');
  }
}
