import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { CLAIM_STATUSES, SIMULATED_PAYOUT_RESULTS } from '../ports/payout-claims';

const ADDRESS_EXAMPLE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A nullable object documented inline (OpenAPI 3.0 ignores `nullable` beside a `$ref`). */
function nullableObject(properties: Record<string, object>, description: string) {
  return { type: 'object' as const, nullable: true, properties, required: Object.keys(properties), description };
}

const STR = (example: unknown, description?: string) => ({ type: 'string', example, ...(description ? { description } : {}) });

/** The fixed payout's fields as the claim shows them (the refund's `payout` adds the transaction and its confirmations). */
export const CLAIM_PAYOUT_PROPERTIES = {
  provider_id: STR('prov_ethereum_usdt'),
  network: STR('ETHEREUM'),
  currency: STR('USDT'),
  address: STR(ADDRESS_EXAMPLE),
  amount: STR(
    '10.000000000000000000000000000000',
    "What to send, in `currency`: the refund's USD value at its rates, rounded DOWN to the coin's decimals (never more than the refund is worth)",
  ),
  uri: {
    ...STR(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDRESS_EXAMPLE}&uint256=10000000`,
      'Payment request your wallet opens (EIP-681 on EVM chains, BIP21 on UTXO chains; null on Tron, which has no payment-URI standard: send `amount` to `address`; in test mode without a rail a plain <network>:<address>?amount=<coin>)',
    ),
    nullable: true,
  },
};

export class ClaimRefundRequestDto {
  @ApiProperty({ example: 'prov_ethereum_usdt', description: 'One of the `methods` of GET /refund_claims/{token}' })
  @Length(1, 100)
  @IsString()
  provider_id: string;

  @ApiProperty({
    example: ADDRESS_EXAMPLE,
    description:
      "Where to send the refund, checked for the provider's network: EIP-55 checksum on EVM chains; bech32/bech32m, base58check or cashaddr on UTXO chains (mainnet in live mode, testnet/regtest in test mode); in test mode also TRON (base58check), XRP Ledger (classic address) and Solana (32-byte key)",
  })
  @Length(1, 200)
  @IsString()
  address: string;
}

export class SimulateRefundPayoutRequestDto {
  @ApiProperty({
    enum: SIMULATED_PAYOUT_RESULTS,
    example: 'paid',
    description:
      '`paid`: the payout arrived in full, the refund is COMPLETED; `short`: it paid the destination less than the payout, the refund goes back to AWAITING_PAYOUT (payout_mismatch)',
  })
  @IsIn([...SIMULATED_PAYOUT_RESULTS], { message: `$property must be one of ${SIMULATED_PAYOUT_RESULTS.join(', ')}` })
  @IsString({ message: `$property must be one of ${SIMULATED_PAYOUT_RESULTS.join(', ')}` })
  result: string;
}

export class ClaimMethodDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'Tether USD' }) name: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) currency: string;
}

export class ClaimPayoutDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) currency: string;
  @ApiProperty({ example: ADDRESS_EXAMPLE }) address: string;
  @ApiProperty({ example: '10.000000000000000000000000000000' }) amount: string;
  @ApiProperty({
    example: `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDRESS_EXAMPLE}&uint256=10000000`,
    nullable: true,
    type: String,
    description: 'Null on Tron (no payment-URI standard)',
  })
  uri: string | null;
}

export class RefundClaimDto {
  @ApiProperty({ enum: CLAIM_STATUSES, example: 'AWAITING_PAYOUT' }) status: string;
  @ApiProperty({ example: '10.000000000000000000000000000000' }) amount: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '10.000000000000000000000000000000' }) amount_usd: string;
  @ApiProperty({ example: '2026-11-28 10:00:00' }) expires_at: string;
  @ApiProperty({ type: [ClaimMethodDto], description: 'Ways the refund may be taken (only while AWAITING_DESTINATION)' }) methods: ClaimMethodDto[];
  @ApiProperty(nullableObject(CLAIM_PAYOUT_PROPERTIES, 'Fixed once a destination is given'))
  payout: ClaimPayoutDto | null;
}

export class ClaimMerchantDto {
  @ApiProperty({ example: 'Acme', description: "The organization's name" }) name: string;
}

export class ClaimInvoiceItemDto {
  @ApiProperty({
    example: 'Pro plan',
    nullable: true,
    type: String,
    description: "The product's name; null for a payment intent (an amount without a product)",
  })
  name: string | null;
  @ApiProperty({ example: 1 }) quantity: number;
}

export class ClaimInvoiceDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ type: [ClaimInvoiceItemDto], description: "The invoice's items, as its checkout page lists them" }) items: ClaimInvoiceItemDto[];
}

export class RefundClaimStateDto extends RefundClaimDto {
  @ApiProperty({ example: true, description: 'A test-mode refund: no real money moves, and the claim page offers the test payout control' }) test_mode: boolean;
  @ApiProperty({ type: ClaimMerchantDto, description: 'Who refunds' }) merchant: ClaimMerchantDto;
  @ApiProperty({ type: ClaimInvoiceDto, description: 'The invoice refunded' }) invoice: ClaimInvoiceDto;
}

export const PAYOUT_EXAMPLE = {
  provider_id: 'prov_ethereum_usdt',
  network: 'ETHEREUM',
  currency: 'USDT',
  address: ADDRESS_EXAMPLE,
  amount: '10.000000000000000000000000000000',
  uri: `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDRESS_EXAMPLE}&uint256=10000000`,
};

export const CLAIM_EXAMPLE = {
  status: 'AWAITING_PAYOUT',
  amount: '10.000000000000000000000000000000',
  currency: 'USD',
  amount_usd: '10.000000000000000000000000000000',
  expires_at: '2026-11-28 10:00:00',
  methods: [],
  payout: PAYOUT_EXAMPLE,
};

export const CLAIM_STATE_EXAMPLE = {
  ...CLAIM_EXAMPLE,
  test_mode: false,
  merchant: { name: 'Acme' },
  invoice: { id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', items: [{ name: 'Pro plan', quantity: 1 }] },
};
