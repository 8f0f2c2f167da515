import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AmountField, CurrencyField, LimitField, OffsetField } from '../../../shared/validation/decorators';
import { REFUND_RATES } from '../domain/refund-amounts';
import { DEFAULT_CLAIM_MINUTES, MAX_CLAIM_MINUTES, MIN_CLAIM_MINUTES } from '../domain/refund-expiry';
import { REFUND_STATUSES } from '../domain/refund-status';
import { CLAIM_PAYOUT_PROPERTIES, PAYOUT_EXAMPLE } from '../../payouts';

const TOKEN_EXAMPLE = 'rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o';
const ADDRESS_EXAMPLE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TX_EXAMPLE = '0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071';

/** A nullable object documented inline (OpenAPI 3.0 ignores `nullable` beside a `$ref`). */
function nullableObject(properties: Record<string, object>, description: string) {
  return { type: 'object' as const, nullable: true, properties, required: Object.keys(properties), description };
}

const STR = (example: unknown, description?: string) => ({ type: 'string', example, ...(description ? { description } : {}) });

const DESTINATION_SCHEMA = nullableObject(
  { provider_id: STR('prov_ethereum_usdt'), network: STR('ETHEREUM'), address: STR(ADDRESS_EXAMPLE) },
  'Where the payer asked it to go; null until then',
);

const PAYOUT_SCHEMA = nullableObject(
  {
    ...CLAIM_PAYOUT_PROPERTIES,
    tx_hash: { type: 'string', nullable: true, example: null, description: 'The transaction you reported (POST /refunds/{id}/sent)' },
    confirmations: { type: 'integer', example: 0, description: 'Blocks on top of the reported transaction, 1 in the block that mined it' },
    required_confirmations: { type: 'integer', example: 12, description: "Confirmations to COMPLETED (the provider's required confirmations)" },
  },
  'What to send, fixed when the payer gave the destination; null until then',
);

export class CreateRefundRequestDto {
  @AmountField({
    required: false,
    example: '10.00',
    description:
      "How much to give back, in `currency`. Default: everything still refundable (completed payments less refunds not canceled or expired), in the invoice's currency.",
  })
  amount?: string;

  @CurrencyField({ required: false, example: 'USD', description: "Currency of `amount`; default: the invoice's currency" })
  currency?: string;

  @ApiPropertyOptional({
    enum: REFUND_RATES,
    default: 'invoice',
    example: 'invoice',
    description:
      "Rates that value the refund and fix the payer's coin amount: `invoice`, the rates the invoice was paid at (default; those its last completed payment was valued at: the invoice's own for a payment within the rate lock, the payment's moment for a late one), so the payer gets back the coins they paid (a payout in a coin the invoice was not paid with, offered when none of those can be paid out, is fixed at the rates of the claim: it has no rate the payer paid at), or `current`: the refund's USD value at the rates of its creation, and the coin amount at the rates of the moment the payer claims it (names the destination).",
  })
  @IsOptional()
  @IsIn([...REFUND_RATES], { message: `$property must be one of ${REFUND_RATES.join(', ')}` })
  @IsString()
  rate?: string;

  @ApiPropertyOptional({ example: 'Order 1234 cancelled', maxLength: 500, description: 'Why; shown to the merchant only (not on the claim page)' })
  @IsOptional()
  @Length(1, 500)
  @IsString()
  reason?: string;

  @ApiPropertyOptional({
    example: 1440,
    minimum: MIN_CLAIM_MINUTES,
    maximum: MAX_CLAIM_MINUTES,
    default: DEFAULT_CLAIM_MINUTES,
    description: 'How long the payer has to name a destination (default 7 days); after it the refund is EXPIRED and its amount refundable again',
  })
  @IsOptional()
  @Min(MIN_CLAIM_MINUTES, { message: `$property must be at least ${MIN_CLAIM_MINUTES}` })
  @Max(MAX_CLAIM_MINUTES, { message: `$property must be at most ${MAX_CLAIM_MINUTES}` })
  @IsInt({ message: '$property must be an integer' })
  expires_in_minutes?: number;
}

export class ListRefundsQueryDto {
  @ApiPropertyOptional({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', description: "Only this invoice's refunds" })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  invoice_id?: string;

  @ApiPropertyOptional({ enum: REFUND_STATUSES, example: 'AWAITING_PAYOUT' })
  @IsOptional()
  @IsIn([...REFUND_STATUSES], { message: `$property must be one of ${REFUND_STATUSES.join(', ')}` })
  @IsString()
  status?: string;

  @ApiPropertyOptional({
    example: 'refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20',
    description: 'Cursor: the refunds after this id (the last of the previous page)',
  })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  starting_after?: string;

  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

export class ReportRefundSentRequestDto {
  @ApiProperty({
    example: TX_EXAMPLE,
    description: 'Hash of the transaction that pays the refund from your wallet: 0x + 64 hex digits on EVM chains, the txid (64 hex digits) on UTXO chains',
  })
  @Length(1, 200)
  @IsString()
  tx_hash: string;
}

export class RefundDestinationDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: ADDRESS_EXAMPLE }) address: string;
}

export class RefundPayoutDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) currency: string;
  @ApiProperty({ example: ADDRESS_EXAMPLE }) address: string;
  @ApiProperty({
    example: '10.000000000000000000000000000000',
    description: "What to send, in `currency`: the refund's USD value at its rates, rounded DOWN to the coin's decimals (never more than the refund is worth)",
  })
  amount: string;
  @ApiProperty({
    example: `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDRESS_EXAMPLE}&uint256=10000000`,
    nullable: true,
    type: String,
    description: 'Payment request your wallet opens (EIP-681 on EVM chains, BIP21 on UTXO chains; null on Tron, which has no payment-URI standard)',
  })
  uri: string | null;
  @ApiProperty({ example: null, nullable: true, type: String, description: 'The transaction you reported (POST /refunds/{id}/sent)' }) tx_hash: string | null;
  @ApiProperty({ example: 0, description: 'Blocks on top of the reported transaction, 1 in the block that mined it' }) confirmations: number;
  @ApiProperty({ example: 12, description: "Confirmations to COMPLETED (the provider's required confirmations)" }) required_confirmations: number;
}

export class RefundDto {
  @ApiProperty({ example: 'refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20' }) id: string;
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) invoice_id: string;
  @ApiProperty({
    enum: REFUND_STATUSES,
    example: 'AWAITING_PAYOUT',
    description:
      'AWAITING_DESTINATION (the payer has not named where yet) -> AWAITING_PAYOUT (send `payout`) -> SENT (reported; confirmations counting) -> COMPLETED; CANCELED (by you, before it is sent) or EXPIRED (no destination by expires_at)',
  })
  status: string;
  @ApiProperty({ example: '10.000000000000000000000000000000' }) amount: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '10.000000000000000000000000000000', description: 'USD value at the refund rates; counts against the invoice paid amount' })
  amount_usd: string;
  @ApiProperty({
    enum: REFUND_RATES,
    example: 'invoice',
    description:
      "`invoice`: the rates the invoice was paid at (its last completed payment's) value the refund and fix the payout's coin amount (in a coin the invoice was not paid with, the rates of the claim). `current`: the rates of the refund's creation value it " +
      "(amount_usd), and the payout's coin amount is fixed at the rates of the moment the payer claims it.",
  })
  rate: string;
  @ApiProperty({ example: 'Order 1234 cancelled', nullable: true, type: String }) reason: string | null;
  @ApiProperty({
    example: `https://pay.example.com/refund_claims/${TOKEN_EXAMPLE}`,
    description: 'Send it to the payer: the page where they name where the refund goes',
  })
  claim_url: string;
  @ApiProperty({ example: '2026-11-28 10:00:00', description: 'Until when the payer may name a destination' }) expires_at: string;
  @ApiProperty(DESTINATION_SCHEMA)
  destination: RefundDestinationDto | null;
  @ApiProperty(PAYOUT_SCHEMA)
  payout: RefundPayoutDto | null;
  @ApiProperty({ example: '2026-11-27 10:00:00' }) created_at: string;
  @ApiProperty({ example: '2026-11-27 10:05:00' }) updated_at: string;
}

export class RefundListDto {
  @ApiProperty({ type: [RefundDto] }) items: RefundDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export const REFUND_EXAMPLE = {
  id: 'refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20',
  invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  status: 'AWAITING_DESTINATION',
  amount: '10.000000000000000000000000000000',
  currency: 'USD',
  amount_usd: '10.000000000000000000000000000000',
  rate: 'invoice',
  reason: 'Order 1234 cancelled',
  claim_url: `https://pay.example.com/refund_claims/${TOKEN_EXAMPLE}`,
  expires_at: '2026-11-28 10:00:00',
  destination: null,
  payout: null,
  created_at: '2026-11-27 10:00:00',
  updated_at: '2026-11-27 10:00:00',
};

export const REFUND_SENT_EXAMPLE = {
  ...REFUND_EXAMPLE,
  status: 'SENT',
  destination: { provider_id: 'prov_ethereum_usdt', network: 'ETHEREUM', address: ADDRESS_EXAMPLE },
  payout: { ...PAYOUT_EXAMPLE, tx_hash: TX_EXAMPLE, confirmations: 1, required_confirmations: 12 },
  updated_at: '2026-11-27 10:09:00',
};

export const REFUND_CANCELED_EXAMPLE = { ...REFUND_EXAMPLE, status: 'CANCELED', updated_at: '2026-11-27 10:09:00' };

export const REFUND_SIMULATED_PAID_EXAMPLE = {
  ...REFUND_SENT_EXAMPLE,
  status: 'COMPLETED',
  payout: { ...REFUND_SENT_EXAMPLE.payout, tx_hash: 'simulated:refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20', confirmations: 12 },
};
