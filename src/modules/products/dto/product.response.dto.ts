import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CURRENCIES } from '../../../shared/money/currency';
import { LimitField, OffsetField } from '../../../shared/validation/decorators';
import { AGGREGATION_TYPES, BILLING_TYPES, INTERVAL_TYPES, PAYMENT_TYPES, RENEW_TYPES, SCHEMA_TYPES } from '../domain/catalog-rules';

const AMOUNT = { type: String, pattern: '^\\d+\\.\\d{30}$' };
const TIMESTAMP = { type: String, example: '2026-11-21 10:00:00' };
const ACTIVE = { oneOf: [{ type: 'integer', enum: [0, 1] }, { type: 'boolean' }], description: '1/0 in single reads, true/false in the list' };

export class ProductIdDto {
  @ApiProperty({ example: 'product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b' }) id: string;
}

export class MetricResponseDto {
  @ApiProperty({ example: 'metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60' }) id: string;
  @ApiProperty({ example: 'api_calls' }) metric_key: string;
  @ApiProperty({ example: 'API calls' }) name: string;
  @ApiProperty({ enum: AGGREGATION_TYPES, example: 'SUM' }) aggregation_type: string;
}

export class ConfigurationResponseDto {
  @ApiProperty() id: string;
  @ApiProperty() version_group_id: string;
  @ApiProperty(ACTIVE) is_active: number | boolean;
  @ApiProperty() schema_id: string;
  @ApiProperty({ ...AMOUNT, description: 'Lower bound of the tier (inclusive)' }) starts_at: string;
  @ApiProperty({ ...AMOUNT, nullable: true, description: 'Upper bound of the tier (exclusive); null for an open last tier' }) ends_at: string | null;
  @ApiProperty(AMOUNT) price_per_unit: string;
  @ApiProperty() metric_id: string;
  @ApiPropertyOptional({ type: MetricResponseDto }) metric?: MetricResponseDto;
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) updated_at: string | null;
}

export class BillingSchemaResponseDto {
  @ApiProperty() id: string;
  @ApiProperty() version_group_id: string;
  @ApiProperty() organization_id: string;
  @ApiProperty() product_id: string;
  @ApiProperty(ACTIVE) is_active: number | boolean;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: SCHEMA_TYPES }) type: string;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty(AMOUNT) base_price: string;
  @ApiProperty({ enum: INTERVAL_TYPES, nullable: true }) interval_type: string | null;
  @ApiProperty({ type: Number, nullable: true }) interval_count: number | null;
  @ApiProperty({ enum: PAYMENT_TYPES, nullable: true }) payment_type: string | null;
  @ApiProperty({ enum: RENEW_TYPES, nullable: true }) renew_type: string | null;
  @ApiProperty({ enum: BILLING_TYPES, nullable: true }) billing_type: string | null;
  @ApiProperty({ type: [ConfigurationResponseDto] }) configurations: ConfigurationResponseDto[];
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) updated_at: string | null;
}

export class ProductResponseDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'Shared by every version of the product' }) version_group_id: string;
  @ApiProperty(ACTIVE) is_active: number | boolean;
  @ApiProperty() name: string;
  @ApiProperty() organization_id: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: String, nullable: true }) image_id: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { id: { type: 'string' }, name: { type: 'string' }, mime_type: { type: 'string' }, url: { type: 'string' } },
    description:
      'The image file named by image_id while it exists (null without image_id or once the file is deleted). url serves the bytes with an API key of the same organization and mode; a payer-facing read (no key) always has null.',
  })
  image: { id: string; name: string; mime_type: string; url: string } | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata: Record<string, string>;
  @ApiProperty({ type: [BillingSchemaResponseDto] }) schemas: BillingSchemaResponseDto[];
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) updated_at: string | null;
}

export class ListProductsQueryDto {
  @LimitField() limit?: number;
  @OffsetField() offset?: number;

  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false', description: 'Also list inactive (superseded) versions' })
  @IsOptional()
  @IsIn(['true', 'false'], { message: '$property must be true or false' })
  include_inactive?: 'true' | 'false';
}

const ORG = 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f';
const PRODUCT = 'product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b';
const SCHEMA = 'schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c';
const CONFIG = 'config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5d';
const METRIC = 'metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60';

export const PRODUCT_REQUEST_EXAMPLE = {
  name: 'Pro plan',
  description: 'Everything in Basic, plus API access',
  metadata: { tier: 'pro' },
  schemas: [
    {
      name: 'Monthly',
      description: 'Billed monthly in arrears',
      currency: 'USD',
      type: 'RECURRING',
      base_price: 100,
      interval_type: 'MONTH',
      interval_count: 1,
      payment_type: 'ARREARS',
      renew_type: 'CALENDAR',
      billing_type: 'FULL',
      configurations: [
        { starts_at: 0, ends_at: 1000, price_per_unit: 0.01, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
        { starts_at: 1000, ends_at: null, price_per_unit: 0.005, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
      ],
    },
  ],
};

const zeros = (whole: string, fraction = '') => `${whole}.${fraction.padEnd(30, '0')}`;

export function productExample(active: number | boolean) {
  return {
    id: PRODUCT,
    version_group_id: 'product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a00',
    is_active: active,
    name: 'Pro plan',
    organization_id: ORG,
    description: 'Everything in Basic, plus API access',
    image_id: null,
    image: null,
    metadata: { tier: 'pro' },
    schemas: [
      {
        id: SCHEMA,
        version_group_id: 'schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a01',
        organization_id: ORG,
        product_id: PRODUCT,
        is_active: active,
        name: 'Monthly',
        description: 'Billed monthly in arrears',
        type: 'RECURRING',
        currency: 'USD',
        base_price: zeros('100'),
        interval_type: 'MONTH',
        interval_count: 1,
        payment_type: 'ARREARS',
        renew_type: 'CALENDAR',
        billing_type: 'FULL',
        configurations: [
          {
            id: CONFIG,
            version_group_id: 'config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a02',
            is_active: active,
            schema_id: SCHEMA,
            starts_at: zeros('0'),
            ends_at: null,
            price_per_unit: zeros('0', '01'),
            metric_id: METRIC,
            metric: { id: METRIC, metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' },
            created_at: '2026-11-21 10:00:00',
            updated_at: null,
          },
        ],
        created_at: '2026-11-21 10:00:00',
        updated_at: null,
      },
    ],
    created_at: '2026-11-21 10:00:00',
    updated_at: null,
  };
}
