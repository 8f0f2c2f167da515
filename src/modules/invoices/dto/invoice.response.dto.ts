import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CURRENCIES } from '../../../shared/money/currency';
import { INVOICE_STATUSES, INVOICE_SUBSTATUSES } from '../domain/invoice-status';

const MONEY = { type: String, pattern: '^-?\\d+\\.\\d{30}$' } as const;
const TIME = { type: String, example: '2026-11-21 10:00:00', description: 'UTC, YYYY-MM-DD HH:MM:SS' } as const;

export class InvoiceItemDto {
  @ApiProperty({ example: 'invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01' }) id: string;
  @ApiProperty() organization_id: string;
  @ApiProperty() invoice_id: string;
  @ApiProperty({ enum: ['PRODUCT', 'PAYMENT_INTENT'] }) type: string;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty({ type: String, nullable: true }) product_id: string | null;
  @ApiProperty({ type: String, nullable: true }) billing_schema_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02' }) payment_intent_id: string | null;
  @ApiProperty({ ...MONEY, nullable: true, description: 'The given price of a PAYMENT_INTENT item; null for PRODUCT items' }) price: string | null;
  @ApiProperty({ type: 'integer' }) quantity: number;
  @ApiProperty({ example: 'INCLUDED' }) status: string;
  @ApiProperty({ type: String, nullable: true }) exclude_reason: string | null;
  @ApiPropertyOptional({
    type: String,
    example: 'Acme API, Pro monthly × 3, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC',
    description:
      "What the line charges, in words; present only where the service wrote one: a subscription's period invoice names the plan (product and billing schema), the quantity or the metric and its usage, and the period (UTC)",
  })
  description?: string;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty({ ...TIME, nullable: true }) updated_at: string | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'Product (when items.product is expanded). With a key: the full catalog product. Without a key (payer view) an allow-list only: id, name, description, image and, in schemas, the billing schemas this invoice was priced with reduced to id, name, description, type, currency, base_price, interval_type, interval_count; never metadata, other schemas or configurations.',
  })
  product?: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'Billing schema (when items.billing_schema is expanded)' })
  billing_schema?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    properties: { id: { type: 'string' }, currency: { type: 'string' }, price: { type: 'string' } },
    description: 'When items.payment_intent is expanded; null for PRODUCT items',
  })
  payment_intent?: unknown;
}

export class InvoiceCalculationDto {
  @ApiProperty({ example: 'invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e03' }) id: string;
  @ApiProperty() organization_id: string;
  @ApiProperty() invoice_id: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null for TOTAL and TOTAL_USD' }) invoice_item_id: string | null;
  @ApiProperty() title: string;
  @ApiProperty({ enum: ['PRODUCT', 'PAYMENT_INTENT', 'CURRENCY_CHANGE', 'TOTAL', 'TOTAL_USD'] }) calculation_type: string;
  @ApiProperty({ type: 'integer' }) idx: number;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty(MONEY) initial_price: string;
  @ApiProperty(MONEY) price_delta: string;
  @ApiProperty(MONEY) price: string;
  @ApiProperty({
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {}, maxItems: 0 },
    ],
  })
  details: unknown;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty({ ...TIME, nullable: true }) updated_at: string | null;
}

/** An invoice's substatus, and what each value says. */
const SUBSTATUS = {
  enum: [...INVOICE_SUBSTATUSES, null],
  nullable: true,
  description:
    'PAID_OVER: paid beyond the price (also set on a COMPLETED invoice paid again); PAID_PARTIAL; MARKED_PAID: completed by the merchant; ' +
    'EXPIRED; PAID_LATE: a counted payment came after expires_at; PAYMENT_REVERSED: a reorg took back a payment of a COMPLETED invoice',
};

export class InvoiceDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty() organization_id: string;
  @ApiProperty({ enum: INVOICE_STATUSES }) status: string;
  @ApiProperty(SUBSTATUS) substatus: string | null;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty(MONEY) price: string;
  @ApiProperty(MONEY) price_usd: string;
  @ApiProperty({
    ...MONEY,
    example: '0.000000000000000000000000000000',
    description: "USD value of the invoice's COMPLETED refunds (POST /invoices/{id}/refunds); the invoice's status does not change with them",
  })
  refunded_usd: string;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty(TIME) updated_at: string;
  @ApiProperty({
    ...TIME,
    nullable: true,
    example: '2026-11-21 10:15:00',
    description: 'Until when the quoted rates hold and a payment is expected; after it an unpaid invoice has substatus EXPIRED (null: never expires)',
  })
  expires_at: string | null;
  @ApiProperty({
    ...TIME,
    nullable: true,
    example: '2026-11-22 10:15:00',
    description:
      'Until when late payments are still accepted; then an unpaid invoice becomes VOIDED (substatus EXPIRED). Normally expires_at plus the monitoring window; later when a chain reorg took a payment off and the invoice fell back to PENDING (held for another window, so the transaction mined again can still pay it)',
  })
  monitoring_until: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Where the hosted checkout page sends the payer a few seconds after the invoice is paid' })
  redirect_url: string | null;
  @ApiProperty({
    example: 'https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    description:
      'The hosted checkout page (GET /checkout/{invoice_id}) to send or embed for the payer: absolute under PUBLIC_BASE_URL when the ' +
      "service sets it, else the path /checkout/{invoice_id} relative to the service's address",
  })
  checkout_url: string;
  @ApiProperty({ type: String, nullable: true, description: 'Masked (j***@example.com) in the payer view' }) customer_email: string | null;
  @ApiPropertyOptional({
    example: 'subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01',
    description:
      "Only on a subscription's period invoice (POST /subscriptions): the subscription it bills. Not in the payer view (read without a key), which shows the period only",
  })
  subscription_id?: string;
  @ApiPropertyOptional({ example: '2026-11-01 00:00:00', description: "Only on a subscription's period invoice: the start of the period it bills (UTC)" })
  period_start?: string;
  @ApiPropertyOptional({
    example: '2026-12-01 00:00:00',
    description: "Only on a subscription's period invoice: the end of the period it bills (UTC, exclusive)",
  })
  period_end?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Absent in the payer view' }) metadata?: Record<string, string>;
  @ApiPropertyOptional({ type: [InvoiceItemDto] }) items?: InvoiceItemDto[];
  @ApiPropertyOptional({ type: [InvoiceCalculationDto], description: 'Per item by idx, then TOTAL and TOTAL_USD' }) calculations?: InvoiceCalculationDto[];
  @ApiPropertyOptional({ type: 'object', properties: { name: { type: 'string' }, image_url: { type: 'string', nullable: true } } }) organization?: unknown;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Payments of the invoice (each with provider when payments.provider is expanded)',
  })
  payments?: unknown[];
  @ApiPropertyOptional({
    type: 'object',
    properties: { code: { type: 'string' }, kind: { enum: ['CRYPTO', 'FIAT'] } },
    description: 'When currency is expanded',
  })
  currency_details?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    properties: { currency: { type: 'string' }, price: { type: 'string' }, price_usd: { type: 'string' }, exchange_rate_timestamp: { type: 'string' } },
    description:
      "When the request names a currency: the invoice total in it, at the invoice's own rates while its rate lock holds, else at current rates (the invoice itself is unchanged)",
  })
  summary?: unknown;
}

export class InvoiceListDto {
  @ApiProperty({ type: [InvoiceDto] }) items: InvoiceDto[];
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty() has_more: boolean;
}

export class InvoiceIdDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
}

export class InvoiceUpdatedDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ example: 'Invoice status changed to VOIDED' }) message: string;
}

export class InvoiceShortStateDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: INVOICE_STATUSES }) status: string;
  @ApiProperty(SUBSTATUS) substatus: string | null;
  @ApiProperty(TIME) updated_at: string;
}

const ORG = 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f';
const INV = 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00';
const ITEM = 'invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01';

export const INVOICE_EXAMPLE = {
  id: INV,
  organization_id: ORG,
  status: 'PENDING',
  substatus: null,
  currency: 'USD',
  price: '25.500000000000000000000000000000',
  price_usd: '25.500000000000000000000000000000',
  refunded_usd: '0.000000000000000000000000000000',
  created_at: '2026-11-21 10:00:00',
  updated_at: '2026-11-21 10:00:00',
  expires_at: '2026-11-21 10:15:00',
  monitoring_until: '2026-11-22 10:15:00',
  redirect_url: 'https://shop.example.com/thanks',
  checkout_url: `https://pay.example.com/checkout/${INV}`,
  customer_email: 'jane@example.com',
  metadata: { order_id: '1234' },
};

export const INVOICE_EXPANDED_EXAMPLE = {
  ...INVOICE_EXAMPLE,
  items: [
    {
      id: ITEM,
      organization_id: ORG,
      invoice_id: INV,
      type: 'PAYMENT_INTENT',
      currency: 'USD',
      product_id: null,
      billing_schema_id: null,
      payment_intent_id: 'pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02',
      price: '25.500000000000000000000000000000',
      quantity: 1,
      status: 'INCLUDED',
      exclude_reason: null,
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    },
  ],
  calculations: [
    {
      id: 'invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e03',
      organization_id: ORG,
      invoice_id: INV,
      invoice_item_id: ITEM,
      title: 'Payment intent',
      calculation_type: 'PAYMENT_INTENT',
      idx: 0,
      currency: 'USD',
      initial_price: '25.500000000000000000000000000000',
      price_delta: '0.000000000000000000000000000000',
      price: '25.500000000000000000000000000000',
      details: { payment_intent_id: 'pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02', currency: 'USD', price: '25.500000000000000000000000000000', quantity: 1 },
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    },
    {
      id: 'invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e04',
      organization_id: ORG,
      invoice_id: INV,
      invoice_item_id: null,
      title: 'Total',
      calculation_type: 'TOTAL',
      idx: 0,
      currency: 'USD',
      initial_price: '0.000000000000000000000000000000',
      price_delta: '25.500000000000000000000000000000',
      price: '25.500000000000000000000000000000',
      details: [],
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    },
    {
      id: 'invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e05',
      organization_id: ORG,
      invoice_id: INV,
      invoice_item_id: null,
      title: 'Total (USD)',
      calculation_type: 'TOTAL_USD',
      idx: 0,
      currency: 'USD',
      initial_price: '0.000000000000000000000000000000',
      price_delta: '25.500000000000000000000000000000',
      price: '25.500000000000000000000000000000',
      details: [],
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    },
  ],
  organization: { name: 'Acme', image_url: null },
  payments: [],
};
