import { ApiProperty } from '@nestjs/swagger';
import { SUBSCRIPTION_STATUSES } from '../domain/billing';

export const SUBSCRIPTION_EXAMPLE = {
  id: 'subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01',
  status: 'ACTIVE',
  product_id: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  billing_schema_id: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10',
  customer_email: 'jane@example.com',
  customer_name: 'Jane Doe',
  quantity: 1,
  metadata: { plan: 'pro' },
  starts_at: '2026-11-16 00:00:00',
  current_period_start: '2026-11-16 00:00:00',
  current_period_end: '2026-12-01 00:00:00',
  next_invoice_at: '2026-12-01 00:00:00',
  latest_invoice_id: null,
  cancel_at_period_end: false,
  canceled_at: null,
  created_at: '2026-11-16 00:00:00',
  updated_at: '2026-11-16 00:00:00',
};

export class SubscriptionResponseDto {
  @ApiProperty({ example: SUBSCRIPTION_EXAMPLE.id }) id: string;
  @ApiProperty({
    enum: SUBSCRIPTION_STATUSES,
    description: 'ACTIVE; PAST_DUE once a period invoice was voided unpaid (ACTIVE again when a later one is paid); CANCELED',
  })
  status: string;
  @ApiProperty({ example: SUBSCRIPTION_EXAMPLE.product_id }) product_id: string;
  @ApiProperty({ example: SUBSCRIPTION_EXAMPLE.billing_schema_id }) billing_schema_id: string;
  @ApiProperty({ example: 'jane@example.com' }) customer_email: string;
  @ApiProperty({ type: String, nullable: true, example: 'Jane Doe' }) customer_name: string | null;
  @ApiProperty({ type: 'integer', example: 1 }) quantity: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { plan: 'pro' } }) metadata: Record<string, string>;
  @ApiProperty({ example: '2026-11-16 00:00:00', description: 'When the first period started (UTC)' }) starts_at: string;
  @ApiProperty({ example: '2026-11-16 00:00:00' }) current_period_start: string;
  @ApiProperty({ example: '2026-12-01 00:00:00', description: 'Exclusive' }) current_period_end: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-12-01 00:00:00', description: 'When the next period invoice is issued; null when none will be' })
  next_invoice_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The last period invoice issued (null before the first)' })
  latest_invoice_id: string | null;
  @ApiProperty({ example: false }) cancel_at_period_end: boolean;
  @ApiProperty({ type: String, nullable: true, example: null }) canceled_at: string | null;
  @ApiProperty({ example: '2026-11-16 00:00:00' }) created_at: string;
  @ApiProperty({ example: '2026-11-16 00:00:00' }) updated_at: string;
}

export class SubscriptionListDto {
  @ApiProperty({ type: [SubscriptionResponseDto] }) items: SubscriptionResponseDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export const USAGE_EVENT_EXAMPLE = {
  id: 'evt_2026_11_27_000123',
  subscription_id: SUBSCRIPTION_EXAMPLE.id,
  metric_key: 'api_calls',
  value: '1.000000000000000000000000000000',
  unique_key: null,
  timestamp: '2026-11-27 10:15:00',
  created_at: '2026-11-27 10:15:01',
};

export class UsageEventResponseDto {
  @ApiProperty({ example: USAGE_EVENT_EXAMPLE.id }) id: string;
  @ApiProperty({ example: USAGE_EVENT_EXAMPLE.subscription_id }) subscription_id: string;
  @ApiProperty({ example: 'api_calls' }) metric_key: string;
  @ApiProperty({ example: USAGE_EVENT_EXAMPLE.value }) value: string;
  @ApiProperty({ type: String, nullable: true, example: null }) unique_key: string | null;
  @ApiProperty({ example: '2026-11-27 10:15:00' }) timestamp: string;
  @ApiProperty({ example: '2026-11-27 10:15:01' }) created_at: string;
}

export class UsageBatchResponseDto {
  @ApiProperty({ type: 'integer', example: 1, description: 'Events recorded by this request' }) created: number;
  @ApiProperty({ type: 'integer', example: 0, description: 'Events whose id was recorded before (left as first recorded)' }) duplicates: number;
  @ApiProperty({ type: [UsageEventResponseDto], description: 'Each event as recorded, in the order sent' }) items: UsageEventResponseDto[];
}

export class UpcomingLineDto {
  @ApiProperty({ enum: ['BASE', 'USAGE'] }) type: string;
  @ApiProperty({
    example: 'Acme API, Pro monthly: API calls, 1,500 units, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC',
    description:
      "What the line charges, in words (the invoice item's description once issued): the plan (product and billing schema names), the quantity or the metric and its exact usage, and the period, UTC",
  })
  description: string;
  @ApiProperty({ type: String, nullable: true, example: 'api_calls' }) metric_key: string | null;
  @ApiProperty({ example: '1500.000000000000000000000000000000', description: 'BASE: the quantity; USAGE: the aggregated usage' }) quantity: string;
  @ApiProperty({ example: '1.150000000000000000000000000000' }) amount: string;
  @ApiProperty({ example: '2026-11-16 00:00:00' }) period_start: string;
  @ApiProperty({ example: '2026-12-01 00:00:00' }) period_end: string;
}

export const UPCOMING_EXAMPLE = {
  subscription_id: SUBSCRIPTION_EXAMPLE.id,
  period_start: '2026-11-16 00:00:00',
  period_end: '2026-12-01 00:00:00',
  invoice_at: '2026-12-01 00:00:00',
  currency: 'USD',
  lines: [
    {
      type: 'BASE',
      description: 'Acme API, Pro monthly × 1, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC, prorated',
      metric_key: null,
      quantity: '1',
      amount: '5.000000000000000000000000000000',
      period_start: '2026-11-16 00:00:00',
      period_end: '2026-12-01 00:00:00',
    },
    {
      type: 'USAGE',
      description: 'Acme API, Pro monthly: API calls, 1,500 units, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC',
      metric_key: 'api_calls',
      quantity: '1500.000000000000000000000000000000',
      amount: '1.150000000000000000000000000000',
      period_start: '2026-11-16 00:00:00',
      period_end: '2026-12-01 00:00:00',
    },
  ],
  total: '6.150000000000000000000000000000',
};

export class UpcomingInvoiceDto {
  @ApiProperty({ example: UPCOMING_EXAMPLE.subscription_id }) subscription_id: string;
  @ApiProperty({ example: '2026-11-16 00:00:00' }) period_start: string;
  @ApiProperty({ example: '2026-12-01 00:00:00' }) period_end: string;
  @ApiProperty({ example: '2026-12-01 00:00:00', description: 'When the scheduler issues it' }) invoice_at: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ type: [UpcomingLineDto] }) lines: UpcomingLineDto[];
  @ApiProperty({ example: '6.150000000000000000000000000000', description: "Sum of the lines, in the schema's currency" }) total: string;
}
