import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CURRENCIES } from '../../../shared/money/currency';
import { PROVIDER_TYPES } from '../../providers';
import { PAYMENT_STATUSES } from '../domain/payment-status';

const MONEY = { type: String, pattern: '^\\d+\\.\\d{30}$' } as const;
const TIME = { type: String, example: '2026-11-21 10:00:00', description: 'UTC, YYYY-MM-DD HH:MM:SS' } as const;

export class ProviderDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) id: string;
  @ApiProperty() organization_id: string;
  @ApiProperty({ example: 'Tether USD (Ethereum, ERC-20)' }) name: string;
  @ApiProperty({ example: 'ethereum-usdt' }) slug: string;
  @ApiProperty({ enum: PROVIDER_TYPES, example: 'CRYPTOCURRENCY' }) type: string;
  @ApiProperty({ description: 'Whether the organization accepts payments through it (in this mode)' }) enabled: boolean;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) gateway: string;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency', description: 'Currency of payments through this provider' }) currency: string;
  @ApiProperty({ type: 'integer', example: 6 }) decimals: number;
  @ApiProperty({ example: '0xdAC17F958D2ee523a2206206994597C13D831ec7', description: "Token contract; '' for native coins and fiat" }) contract_address: string;
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'Confirmations a payment through it needs before it counts (0 for fiat); the organization may override the catalog value',
  })
  required_confirmations: number;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty(TIME) updated_at: string;
}

export class PaymentDto {
  @ApiProperty({ example: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01' }) id: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: "The provider's reference; absent in the payer view" }) idempotency_key?: string | null;
  @ApiProperty() organization_id: string;
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ type: String, nullable: true }) invoice_id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807',
    description: 'The chain transaction that paid it, for a payment a chain rail recorded (in the payer view too); null otherwise',
  })
  tx_hash: string | null;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty({ ...MONEY, description: 'Amount in the payment currency' }) price: string;
  @ApiProperty({
    ...MONEY,
    description:
      "USD value: at the invoice's own rates when the payment happened within its rate lock (rates_taken_at to expires_at), else at the rates in force at happened_at",
  })
  price_usd: string;
  @ApiProperty({ enum: PAYMENT_STATUSES }) status: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Blocks the payment is buried under, as last reported (0 for fiat)' }) confirmations: number;
  @ApiProperty({ type: 'integer', example: 12, description: 'Confirmations it needs to count toward its invoice (fixed when first reported; 0 for fiat)' })
  required_confirmations: number;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty({ ...TIME, nullable: true }) updated_at: string | null;
  @ApiProperty({ ...TIME, description: 'When the payment happened (as the provider reported it)' }) happened_at: string;
  @ApiPropertyOptional({ type: ProviderDto, nullable: true, description: 'When expand contains provider' }) provider?: ProviderDto | null;
}

export class PaymentListDto {
  @ApiProperty({ type: [PaymentDto] }) items: PaymentDto[];
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty() has_more: boolean;
}

const ORG = 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f';

export const PROVIDER_EXAMPLE = {
  id: 'prov_ethereum_usdt',
  organization_id: ORG,
  name: 'Tether USD (Ethereum, ERC-20)',
  slug: 'ethereum-usdt',
  type: 'CRYPTOCURRENCY',
  enabled: true,
  network: 'ETHEREUM',
  gateway: 'USDT',
  currency: 'USDT',
  decimals: 6,
  contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  required_confirmations: 12,
  created_at: '2026-11-21 09:00:00',
  updated_at: '2026-11-21 09:00:00',
};

export const PAYMENT_EXAMPLE = {
  id: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01',
  idempotency_key: 'ethereum:0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807:0',
  organization_id: ORG,
  provider_id: 'prov_ethereum_usdt',
  invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  tx_hash: '0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807',
  currency: 'USDT',
  price: '25.500000000000000000000000000000',
  price_usd: '25.505100000000000000000000000000',
  status: 'COMPLETED',
  confirmations: 12,
  required_confirmations: 12,
  created_at: '2026-11-21 10:05:00',
  updated_at: '2026-11-21 10:07:12',
  happened_at: '2026-11-21 10:04:58',
};

export const PAYMENT_EXPANDED_EXAMPLE = { ...PAYMENT_EXAMPLE, provider: PROVIDER_EXAMPLE };
