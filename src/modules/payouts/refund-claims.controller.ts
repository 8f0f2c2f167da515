import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public, PublicPayer } from '../../shared/auth/auth.decorators';
import { AppConfig } from '../../shared/config/app-config';
import { NotFoundError } from '../../shared/errors/domain-error';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { LimitDecision, RateLimiter } from '../../shared/rate-limit/rate-limiter';
import { ClaimAssets } from './claim-assets';
import { chooseClaimLanguage, CLAIM_LANGUAGES, ClaimShell, renderClaimMessagePage, renderClaimPage } from './domain/claim-page';
import {
  CLAIM_EXAMPLE,
  CLAIM_STATE_EXAMPLE,
  ClaimRefundRequestDto,
  RefundClaimDto,
  RefundClaimStateDto,
  SimulateRefundPayoutRequestDto,
} from './dto/claim.dto';
import {
  ClaimPayoutCommand,
  GetPayoutClaimQuery,
  PayoutClaimState,
  SimulateClaimPayoutCommand,
  SimulatedClaimPayout,
  SimulatedPayoutResult,
} from './ports/payout-claims';

/** How often the claim page asks for the refund's state while its payout is on the way. */
export const DEFAULT_CLAIM_POLL_MS = 4000;

function pollMillis(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,7}$/.test(value)) return DEFAULT_CLAIM_POLL_MS;
  return Math.min(60000, Math.max(250, Number(value)));
}

/** The claim's JSON state as the page polls it. */
function stateView(claim: PayoutClaimState) {
  const { mode, ...rest } = claim;
  return { ...rest, test_mode: mode === 'test' };
}

const TOKEN_PARAM = ApiParam({
  name: 'token',
  description: "The claim token, the last part of the refund's claim_url",
  example: 'rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o',
});

/**
 * The payer's side of a refund, without a key: the claim token in claim_url is the capability
 * (like an invoice id on the checkout). Every route counts against the anonymous rate limit of the
 * payer calls. The page and the routes are payouts'; what they show and move is asked of the claim's
 * owner (refunds) through this module's ports (ports/payout-claims.ts).
 */
@ApiTags('Refunds')
@Controller('refund_claims')
export class RefundClaimsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(ClaimAssets) private readonly assets: ClaimAssets,
  ) {}

  @Get('assets/:file')
  @Public()
  @ApiOperation({ summary: 'A file of the refund claim page (script, stylesheet)', description: 'Public; unknown names are 404.' })
  @ApiParam({ name: 'file', enum: ['claim.js', 'claim.css'], example: 'claim.js' })
  @ApiProduces('text/javascript', 'text/css')
  @ApiResponse({ status: 200, description: 'The file' })
  @ApiResponse({ status: 404, description: 'No such file' })
  asset(@Param('file') file: string, @Query('v') version: unknown, @Res() res: Response): void {
    const asset = this.assets.files.get(file);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!asset) {
      res.status(404).type('text/plain; charset=utf-8').send('Not found');
      return;
    }
    res.setHeader('Cache-Control', version === this.assets.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    res.status(200).type(asset.contentType).send(asset.body);
  }

  @Get(':token')
  @Public()
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'The refund claim page (HTML)',
    description:
      "The page behind a refund's claim_url: who refunds (the merchant's name) and which invoice (its id and items), the amount, and while the " +
      'refund is AWAITING_DESTINATION a form to choose how to receive it and give an address (checked for the network before anything is sent); ' +
      "afterwards the payout fixed then and the refund's progress (waiting for the merchant, sent, completed), kept current by polling " +
      'GET /refund_claims/{token}/state as the checkout page polls a payment. In test mode it offers every provider enabled for the organization ' +
      'and, once a payout is fixed, a test control ("Simulate payout", "Simulate short payout") calling POST /refund_claims/{token}/test_payout. ' +
      'English and German (`lang`, else Accept-Language). Its script calls only those three routes and POST /refund_claims/{token}. Strict ' +
      'Content-Security-Policy (no inline script or style, nothing from another host). An unknown token is a 404 page; over the anonymous rate ' +
      'limit a 429 page.',
  })
  @ApiQuery({ name: 'lang', required: false, enum: [...CLAIM_LANGUAGES] })
  @ApiQuery({
    name: 'poll_ms',
    required: false,
    schema: { type: 'integer', minimum: 250, maximum: 60000, default: DEFAULT_CLAIM_POLL_MS },
    description: "How often the page asks for the refund's state (GET /refund_claims/{token}/state), in milliseconds",
  })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'Chooses the language when lang is not given (en, de)' })
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'The claim page', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 404, description: 'No such claim: a page saying so', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 429, description: 'Over the anonymous rate limit', content: { 'text/html': { schema: { type: 'string' } } } })
  async page(
    @Param('token') token: string,
    @Query('lang') lang: unknown,
    @Query('poll_ms') pollMs: unknown,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const language = chooseClaimLanguage(lang, acceptLanguage);
    const strings = this.assets.stringsOf(language);
    const base = this.config.publicBaseUrl ?? '';
    const shell: ClaimShell = { lang: language, strings, languages: this.assets.languages, base, assetVersion: this.assets.version };
    const self = ["'self'", ...(base ? [new URL(base).origin] : [])].join(' ');
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src ${self}; style-src ${self}; img-src ${self}; connect-src ${self}; base-uri 'none'; form-action 'none'; object-src 'none'; frame-ancestors 'none'`,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept-Language');
    res.type('text/html; charset=utf-8');
    const decision = await this.limit(req, res);
    if (decision && !decision.allowed) {
      res.setHeader('Retry-After', String(decision.resetSeconds));
      res.status(429).send(renderClaimMessagePage(shell, strings.rate_limited_title, strings.rate_limited_text));
      return;
    }
    const claim = await this.queries.execute(new GetPayoutClaimQuery(token));
    if (!claim) {
      res.status(404).send(renderClaimMessagePage(shell, strings.not_found_title, strings.not_found_text));
      return;
    }
    res.status(200).send(
      renderClaimPage(shell, {
        token,
        testMode: claim.mode === 'test',
        status: claim.status,
        amount: claim.amount,
        currency: claim.currency,
        expiresAt: claim.expires_at,
        methods: claim.methods,
        payout: claim.payout,
        merchant: claim.merchant.name,
        invoice: claim.invoice,
        pollMs: pollMillis(pollMs),
      }),
    );
  }

  @Get(':token/state')
  @PublicPayer()
  @TOKEN_PARAM
  @ApiOperation({
    summary: "A refund claim's state (JSON, no key)",
    description:
      'What the claim page shows and polls: the status, the amount, the methods offered while AWAITING_DESTINATION, the payout once fixed, ' +
      "`test_mode`, the merchant's name and the invoice's id and items (what its checkout page shows a payer anyway). Unknown token: 404. " +
      'Anonymous rate limit: 429.',
  })
  @ApiEnvelope({ type: RefundClaimStateDto, example: CLAIM_STATE_EXAMPLE, message: 'Refund claim' })
  @ApiErrors(404, 429)
  async state(@Param('token') token: string, @Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    const claim = await this.queries.execute(new GetPayoutClaimQuery(token));
    if (!claim) throw new NotFoundError('refund claim');
    return reply(stateView(claim), 'Refund claim');
  }

  @Post(':token/test_payout')
  @HttpCode(200)
  @PublicPayer()
  @TOKEN_PARAM
  @ApiOperation({
    summary: "Simulate a test-mode refund's payout from its claim page (no key)",
    description:
      'The claim page\'s test control (decisions §19, "Test mode"), as the checkout page\'s test payment is POST /invoices/{id}/test_payment: ' +
      'the claim token is the capability, and only a test-mode refund answers (a live one is 404, as an unknown token is), so it moves no real ' +
      'money and no live refund. The same move as POST /test_helpers/refunds/{id}/payout: `paid` completes a refund AWAITING_PAYOUT or SENT ' +
      "(refund.updated, refund.completed, the invoice's refunded_usd), `short` takes it back to AWAITING_PAYOUT with payout_mismatch (named in " +
      'the message); `paid` again on a COMPLETED refund answers it as it is; other states: 400 invalid_state_transition. Anonymous rate limit: 429, ' +
      'checked before the body is read; a body over PAYER_BODY_LIMIT_BYTES (8 KB): 413.',
  })
  @ApiBody({ type: SimulateRefundPayoutRequestDto, examples: { paid: { value: { result: 'paid' } }, short: { value: { result: 'short' } } } })
  @ApiEnvelope({ type: RefundClaimDto, example: { ...CLAIM_EXAMPLE, status: 'COMPLETED' }, message: 'Simulated payout completed the refund' })
  @ApiErrors(400, 404, 413, 429)
  async testPayout(@Param('token') token: string, @Body() body: SimulateRefundPayoutRequestDto) {
    const done: SimulatedClaimPayout = await this.commands.execute(new SimulateClaimPayoutCommand(token, body.result as SimulatedPayoutResult));
    return reply(done.claim, done.message);
  }

  @Post(':token')
  @HttpCode(200)
  @PublicPayer()
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'Claim a refund: say where it goes (no key)',
    description:
      "The payer (or a merchant's own page on their behalf) names a payout method (`provider_id`, one of the page's methods: the providers the " +
      'invoice was paid through that a configured rail carries, else every carried one; in test mode also every provider enabled for the ' +
      'organization that takes an address, whose payout the merchant then simulates) and an address. The address is checked for that network ' +
      '(EIP-55 checksum on EVM chains; bech32/bech32m, base58check or cashaddr on UTXO chains, mainnet in live mode, testnet/regtest in test mode; ' +
      'in test mode TRON base58check, XRP Ledger classic addresses and Solana keys): ' +
      "400 validator.address. The coin amount is fixed then, at the refund's rates (`rate: current`: the rates of this moment), rounded down to the " +
      "coin's decimals, and shown in `payout` with a payment URI for the merchant's wallet; the refund is AWAITING_PAYOUT. The chain's tip height is " +
      "recorded then (on a network with a rail): the payout must be mined in a later block (503 `service_unavailable` when the network's node does not answer; try again). " +
      'The same destination sent again (also while the first is being recorded) answers the claim as it is; another once it is given is 400 (validator.status). 400 `claim_expired` after ' +
      'expires_at. Unknown token: 404. Anonymous rate limit: 429, checked before the body is read; a body over PAYER_BODY_LIMIT_BYTES (8 KB): 413.',
  })
  @ApiBody({
    type: ClaimRefundRequestDto,
    examples: { evm: { value: { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } } },
  })
  @ApiEnvelope({ type: RefundClaimDto, example: CLAIM_EXAMPLE, message: 'Refund claimed' })
  @ApiErrors(400, 404, 413, 429, 503)
  async claim(@Param('token') token: string, @Body() body: ClaimRefundRequestDto) {
    return reply(await this.commands.execute(new ClaimPayoutCommand(token, body.provider_id, body.address)), 'Refund claimed');
  }

  private async limit(req: Request, res: Response): Promise<LimitDecision | null> {
    if (!this.limiter.enabled) return null;
    const decision = await this.limiter.forAnonymous(clientBucket(req.ip));
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    return decision;
  }
}
