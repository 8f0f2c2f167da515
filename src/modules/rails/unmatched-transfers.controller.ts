import { Audited } from '../../shared/audit/audit-trail';
import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { RetryUnmatchedTransferCommand } from './commands/retry-unmatched-transfer/retry-unmatched-transfer.command';
import type { UnmatchedStatus } from './domain/unmatched-transfer';
import {
  ListUnmatchedTransfersQueryDto,
  UNMATCHED_TRANSFER_EXAMPLE,
  UNMATCHED_TRANSFER_RESOLVED_EXAMPLE,
  UNMATCHED_TRANSFER_WITHOUT_INVOICE_EXAMPLE,
  UnmatchedTransferDto,
  UnmatchedTransferListDto,
} from './dto/rails.dto';
import { GetUnmatchedTransferQuery } from './queries/get-unmatched-transfer/get-unmatched-transfer.query';
import { ListUnmatchedTransfersQuery } from './queries/list-unmatched-transfers/list-unmatched-transfers.query';

const ID_PARAM = ApiParam({ name: 'id', description: 'Unmatched transfer id (unmatched_...)', example: UNMATCHED_TRANSFER_EXAMPLE.id });

/**
 * Transfers that arrived at a deposit address but that no payment records: the payments module
 * refused them when the watcher reported them (docs/rails.md, "Unmatched transfers").
 */
@ApiTags('Wallets')
@Controller('rails/unmatched')
export class UnmatchedTransfersController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List transfers no payment records',
    description:
      'Money that arrived at one of your deposit addresses but was not recorded as a payment, because the payment was refused when the ' +
      'watcher saw it (reason_code: provider_disabled when the provider was disabled after the address was handed out, invoice_not_found, ...). ' +
      'Nothing is lost: fix the cause (enable the provider again) and retry it. Money that reached your Solana wallet in a transaction ' +
      'without a reference of a payment address this service handed out (typed by hand, sent from an exchange) is kept here too, with ' +
      'invoice_id null and reason_code no_known_reference: no invoice is known, so it cannot be retried (match it yourself). Newest first; ' +
      '`status` filters; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset.',
  })
  @ApiEnvelope({
    type: UnmatchedTransferListDto,
    example: { items: [UNMATCHED_TRANSFER_WITHOUT_INVOICE_EXAMPLE, UNMATCHED_TRANSFER_EXAMPLE], total: 2, limit: 20, offset: 0, has_more: false },
    message: 'Unmatched transfers',
  })
  @ApiErrors(400, 401)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListUnmatchedTransfersQueryDto) {
    const page = await this.queries.execute(
      new ListUnmatchedTransfersQuery(scopeOf(caller), {
        status: query.status ? [query.status as UnmatchedStatus] : undefined,
        startingAfter: query.starting_after,
        limit: query.limit ?? 20,
        offset: query.offset ?? 0,
      }),
    );
    return reply(page, 'Unmatched transfers');
  }

  @Get(':id')
  @HttpCode(200)
  @Authenticated()
  @ID_PARAM
  @ApiOperation({ summary: 'Read a transfer no payment records' })
  @ApiEnvelope({ type: UnmatchedTransferDto, example: UNMATCHED_TRANSFER_EXAMPLE, message: 'Unmatched transfer' })
  @ApiErrors(401, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetUnmatchedTransferQuery(scopeOf(caller), id)), 'Unmatched transfer');
  }

  @Post(':id/retry')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('transfer.retry')
  @ID_PARAM
  @ApiOperation({
    summary: 'Record a transfer as a payment again',
    description:
      'Sends the transfer to the payments module again, as the watcher did, with the same idempotency key ' +
      '(<network>:<tx_hash>:<log_index|native>), so the payment is recorded once however often this is called. On success the transfer is ' +
      'RESOLVED with payment_id (a RESOLVED one is answered as it is); its confirmations are counted from then on. Refused again: 400 ' +
      'transfer_not_recorded (validator.id says why; the transfer keeps the new reason). 400 transfer_in_doubt while a chain reorganization ' +
      'has taken its block away. 400 transfer_without_invoice for a transfer kept without an invoice (invoice_id null, reason_code ' +
      'no_known_reference): no invoice is known to record a payment for, so it stays OPEN; match it yourself (mark the invoice it was ' +
      'meant for paid, or send the money back).',
  })
  @ApiEnvelope({ type: UnmatchedTransferDto, example: UNMATCHED_TRANSFER_RESOLVED_EXAMPLE, message: 'Transfer recorded' })
  @ApiErrors(400, 401, 403, 404)
  async retry(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.commands.execute(new RetryUnmatchedTransferCommand(scopeOf(caller), id)), 'Transfer recorded');
  }
}
