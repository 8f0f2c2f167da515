import { Audited } from '../../shared/audit/audit-trail';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { Idempotent } from '../../shared/idempotency/idempotency';
import type { Currency } from '../../shared/money/currency';
import { parseAmount } from '../../shared/money/money';
import { CancelRefundCommand } from './commands/cancel-refund/cancel-refund.command';
import { CreateRefundCommand } from './commands/create-refund/create-refund.command';
import { ReportRefundSentCommand } from './commands/report-refund-sent/report-refund-sent.command';
import type { RefundRate } from './domain/refund-amounts';
import type { RefundStatus } from './domain/refund-status';
import {
  CreateRefundRequestDto,
  ListRefundsQueryDto,
  REFUND_CANCELED_EXAMPLE,
  REFUND_EXAMPLE,
  REFUND_SENT_EXAMPLE,
  RefundDto,
  RefundListDto,
  ReportRefundSentRequestDto,
} from './dto/refund.dto';
import { GetRefundQuery } from './queries/get-refund/get-refund.query';
import { ListRefundsQuery } from './queries/list-refunds/list-refunds.query';

const REFUND_ID = ApiParam({ name: 'id', description: 'Refund id (refund_...)', example: REFUND_EXAMPLE.id });

/**
 * Refunds (decisions §19, docs/refunds.md): the merchant creates one against a paid invoice and sends
 * its claim_url to the payer, who names where the money goes; the merchant sends it from their own
 * wallet and reports the transaction, which the chain confirms.
 */
@ApiTags('Refunds')
@Controller()
export class RefundsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post('invoices/:id/refunds')
  @HttpCode(201)
  @Authenticated({ write: true })
  @Audited('refund.create')
  @Idempotent()
  @ApiOperation({
    summary: 'Refund an invoice, fully or in part',
    description:
      "Refundable: the USD value of the invoice's COMPLETED payments less its refunds that are not CANCELED or EXPIRED. Without `amount`, " +
      "everything refundable, in the invoice's currency. The refund is valued at `rate` (`invoice`, the default: the rates the invoice was priced and " +
      "paid at; `current`: today's, and the payout's coin amount at the rates of the moment the payer claims). 400 `refund_exceeds_paid` (validator.amount) when it is worth more than is refundable, 400 `nothing_to_refund` " +
      "when nothing is. The answer's claim_url is for the payer: there they choose how to receive it and give an address (until expires_at, default 7 " +
      "days); the coin amount is fixed then. The invoice's own status does not change.",
  })
  @ApiParam({ name: 'id', description: 'Invoice id (invoice_...)', example: REFUND_EXAMPLE.invoice_id })
  @ApiBody({
    type: CreateRefundRequestDto,
    required: false,
    examples: {
      full: { value: {} },
      partial: { value: { amount: '10.00', currency: 'USD', rate: 'invoice', reason: 'Order 1234 cancelled', expires_in_minutes: 1440 } },
    },
  })
  @ApiEnvelope({ status: 201, type: RefundDto, example: REFUND_EXAMPLE, message: 'Refund created' })
  @ApiErrors(400, 401, 403, 404)
  async create(@RequiredCaller() caller: CallerContext, @Param('id') invoiceId: string, @Body() body: CreateRefundRequestDto) {
    const view = await this.commands.execute(
      new CreateRefundCommand(scopeOf(caller), invoiceId, {
        amount: body.amount != null ? parseAmount(body.amount) : null,
        currency: (body.currency as Currency | undefined) ?? null,
        rate: (body.rate as RefundRate | undefined) ?? 'invoice',
        reason: body.reason ?? null,
        expiresInMinutes: body.expires_in_minutes,
      }),
    );
    return reply(view, 'Refund created');
  }

  @Get('refunds')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List refunds',
    description: 'Newest first; `invoice_id` and `status` filter (AND). limit default 20 (at most 100), offset default 0; for deep pages pass starting_after.',
  })
  @ApiEnvelope({ type: RefundListDto, example: { items: [REFUND_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false }, message: 'Refunds' })
  @ApiErrors(400, 401)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListRefundsQueryDto) {
    const page = await this.queries.execute(
      new ListRefundsQuery(scopeOf(caller), {
        invoiceId: query.invoice_id,
        status: query.status ? [query.status as RefundStatus] : undefined,
        startingAfter: query.starting_after,
        limit: query.limit ?? 20,
        offset: query.offset ?? 0,
      }),
    );
    return reply(page, 'Refunds');
  }

  @Get('refunds/:id')
  @HttpCode(200)
  @Authenticated()
  @REFUND_ID
  @ApiOperation({ summary: 'Read a refund' })
  @ApiEnvelope({ type: RefundDto, example: REFUND_SENT_EXAMPLE, message: 'Refund' })
  @ApiErrors(401, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetRefundQuery(scopeOf(caller), id)), 'Refund');
  }

  @Post('refunds/:id/cancel')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('refund.cancel')
  @REFUND_ID
  @ApiOperation({
    summary: 'Cancel a refund not yet sent',
    description:
      'From AWAITING_DESTINATION or AWAITING_PAYOUT; its amount is refundable again. Once SENT only the chain decides: 400 (validator.status). ' +
      'Canceling a CANCELED refund answers it as it is.',
  })
  @ApiEnvelope({ type: RefundDto, example: REFUND_CANCELED_EXAMPLE, message: 'Refund canceled' })
  @ApiErrors(400, 401, 403, 404)
  async cancel(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.commands.execute(new CancelRefundCommand(scopeOf(caller), id)), 'Refund canceled');
  }

  @Post('refunds/:id/sent')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('refund.sent')
  @REFUND_ID
  @ApiOperation({
    summary: 'Report the transaction that pays a refund',
    description:
      'Send `payout.amount` of `payout.currency` to `payout.address` from your wallet (or open `payout.uri` in it), then report the transaction ' +
      "here: the refund is SENT and its confirmations are counted to the provider's required confirmations, then COMPLETED (refund.completed). " +
      'What the report must prove: the transaction is mined in a block after the chain tip recorded when the payer gave the destination (or is ' +
      'seen unmined after it), else 400 `payout_mismatch`; the node knows it (a hash it does not know, mined or waiting, is 400 `tx_not_found` and ' +
      "nothing is kept); it pays the destination at least the payout in the payout's asset through transfers that each pay that one address (a " +
      "token's Transfer log, the transaction's own coin value, a UTXO output paying exactly that address, on Solana all that the transaction " +
      'gave that wallet in the asset, as one transfer; transfers made inside contracts do not count), else 400 `payout_mismatch` ' +
      '(validator.tx_hash); and each of those transfers pays no other refund (a refund takes them once they are shown to pay it): one ' +
      'transaction may pay several refunds, but what it gave one Solana wallet in one asset pays only one. A ' +
      'transaction waiting unmined is taken and checked once mined: if it then does not pay the refund, or it leaves the node ' +
      'unmined for REFUND_TX_GRACE_SECONDS, the refund goes back to AWAITING_PAYOUT (refund.updated) and may be canceled. Reporting the same hash ' +
      'again answers the refund as it is.',
  })
  @ApiBody({
    type: ReportRefundSentRequestDto,
    examples: { evm: { value: { tx_hash: '0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071' } } },
  })
  @ApiEnvelope({ type: RefundDto, example: REFUND_SENT_EXAMPLE, message: 'Refund payout reported' })
  @ApiErrors(400, 401, 403, 404)
  async sent(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: ReportRefundSentRequestDto) {
    return reply(await this.commands.execute(new ReportRefundSentCommand(scopeOf(caller), id, body.tx_hash)), 'Refund payout reported');
  }
}
