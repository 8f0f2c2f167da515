import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { Currency } from '../../../../shared/money/currency';
import { AmountField, CurrencyField, MetadataField } from '../../../../shared/validation/decorators';
import { AGGREGATION_TYPES, BILLING_TYPES, INTERVAL_TYPES, PAYMENT_TYPES, RENEW_TYPES, SCHEMA_TYPES } from '../../domain/catalog-rules';
import type { AggregationType, BillingType, IntervalType, PaymentType, RenewType, SchemaType } from '../../domain/catalog-rules';

export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 2000;
export const MAX_SCHEMAS = 50;
export const MAX_CONFIGURATIONS = 100;
export const MAX_INTERVAL_COUNT = 1000;

const oneOf = (values: readonly string[]) => ({ message: `$property must be one of ${values.join(', ')}` });

/** The metric a usage tier prices: an existing one by id, or one found (or created) by metric_key. */
export class MetricInputDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Id of an existing metric of the organization and mode; when given, the other fields are not needed',
    example: 'metric_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  })
  @IsOptional()
  @Length(1, MAX_NAME)
  @IsString()
  id?: string | null;

  @ApiPropertyOptional({
    description:
      'Key the metric is found by; a metric with a new key is created on first use (an existing one keeps its name and must have the same aggregation_type). Required without id.',
    example: 'api_calls',
    pattern: '^[A-Za-z0-9_.:-]{1,100}$',
  })
  @ValidateIf((o: MetricInputDto) => o.id == null || o.metric_key != null)
  @Matches(/^[A-Za-z0-9_.:-]+$/, { message: '$property may hold only letters, digits and _ . : -' })
  @Length(1, 100)
  @IsString()
  metric_key?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Display name of a new metric (defaults to metric_key)',
    example: 'API calls',
    maxLength: MAX_NAME,
  })
  @IsOptional()
  @Length(1, MAX_NAME)
  @IsString()
  name?: string | null;

  @ApiPropertyOptional({ enum: AGGREGATION_TYPES, description: 'How usage of a new metric is aggregated. Required without id.', example: 'SUM' })
  @ValidateIf((o: MetricInputDto) => o.id == null || o.aggregation_type != null)
  @IsIn(AGGREGATION_TYPES, oneOf(AGGREGATION_TYPES))
  aggregation_type?: AggregationType;
}

/** A usage tier: units of the metric from starts_at (inclusive) up to ends_at (exclusive; null = no end). */
export class ConfigurationInputDto {
  @AmountField({ description: 'Lower bound of the tier (a quantity, inclusive)', example: 0 })
  starts_at: string;

  @AmountField({ required: false, nullable: true, description: 'Upper bound of the tier (exclusive); null or omitted for the open last tier', example: 1000 })
  ends_at?: string | null;

  @AmountField({ description: 'Price of one unit within the tier', example: 0.01 })
  price_per_unit: string;

  @ApiProperty({ type: MetricInputDto })
  @ValidateNested()
  @Type(() => MetricInputDto)
  @IsObject({ message: '$property must be an object' })
  @IsDefined({ message: '$property is required' })
  metric: MetricInputDto;
}

export class SchemaInputDto {
  @ApiProperty({ example: 'Monthly', minLength: 1, maxLength: MAX_NAME })
  @Length(1, MAX_NAME)
  @IsString()
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Billed monthly in arrears', maxLength: MAX_DESCRIPTION })
  @IsOptional()
  @Length(0, MAX_DESCRIPTION)
  @IsString()
  description?: string | null;

  @CurrencyField()
  currency: Currency;

  @ApiProperty({ enum: SCHEMA_TYPES, example: 'RECURRING' })
  @IsIn(SCHEMA_TYPES, oneOf(SCHEMA_TYPES))
  type: SchemaType;

  @AmountField({ description: 'Base price per period (RECURRING) or once (ONE_TIME)', example: 100 })
  base_price: string;

  @ApiPropertyOptional({ enum: INTERVAL_TYPES, nullable: true, description: 'Required for RECURRING; stored as null for ONE_TIME', example: 'MONTH' })
  @IsOptional()
  @IsIn(INTERVAL_TYPES, oneOf(INTERVAL_TYPES))
  interval_type?: IntervalType | null;

  @ApiPropertyOptional({
    type: Number,
    minimum: 1,
    maximum: MAX_INTERVAL_COUNT,
    nullable: true,
    description: 'Required for RECURRING; stored as null for ONE_TIME',
    example: 1,
  })
  @IsOptional()
  @Max(MAX_INTERVAL_COUNT, { message: `$property must be at most ${MAX_INTERVAL_COUNT}` })
  @Min(1, { message: '$property must be at least 1' })
  @IsInt({ message: '$property must be an integer' })
  interval_count?: number | null;

  @ApiPropertyOptional({ enum: PAYMENT_TYPES, nullable: true, description: 'Required for RECURRING; stored as null for ONE_TIME', example: 'ARREARS' })
  @IsOptional()
  @IsIn(PAYMENT_TYPES, oneOf(PAYMENT_TYPES))
  payment_type?: PaymentType | null;

  @ApiPropertyOptional({ enum: RENEW_TYPES, nullable: true, description: 'Required for RECURRING; stored as null for ONE_TIME', example: 'CALENDAR' })
  @IsOptional()
  @IsIn(RENEW_TYPES, oneOf(RENEW_TYPES))
  renew_type?: RenewType | null;

  @ApiPropertyOptional({ enum: BILLING_TYPES, nullable: true, description: 'Required for RECURRING; stored as null for ONE_TIME', example: 'FULL' })
  @IsOptional()
  @IsIn(BILLING_TYPES, oneOf(BILLING_TYPES))
  billing_type?: BillingType | null;

  @ApiPropertyOptional({ type: [ConfigurationInputDto], maxItems: MAX_CONFIGURATIONS, description: 'Usage tiers; tiers of one metric must not overlap' })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => ConfigurationInputDto)
  @IsObject({ each: true, message: '$property must hold tier objects' })
  @ArrayMaxSize(MAX_CONFIGURATIONS, { message: `$property must hold at most ${MAX_CONFIGURATIONS} tiers` })
  @IsArray({ message: '$property must be an array' })
  configurations?: ConfigurationInputDto[] | null;
}

/** Body of POST /products and PUT /products/{id} (a replace sends the whole product again). */
export class ProductRequestDto {
  @ApiProperty({ example: 'Pro plan', minLength: 1, maxLength: MAX_NAME })
  @Length(1, MAX_NAME)
  @IsString()
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Everything in Basic, plus API access', maxLength: MAX_DESCRIPTION })
  @IsOptional()
  @Length(0, MAX_DESCRIPTION)
  @IsString()
  description?: string | null;

  @MetadataField({ example: { tier: 'pro' } })
  metadata?: Record<string, string> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Id of an image file this organization uploaded in the same mode (POST /files/upload); anything else is refused with 400 at image_id',
    example: null,
  })
  @IsOptional()
  @Length(1, MAX_NAME)
  @IsString()
  image_id?: string | null;

  @ApiProperty({ type: [SchemaInputDto], minItems: 1, maxItems: MAX_SCHEMAS })
  @ValidateNested({ each: true })
  @Type(() => SchemaInputDto)
  @IsObject({ each: true, message: '$property must hold schema objects' })
  @ArrayMaxSize(MAX_SCHEMAS, { message: `$property must hold at most ${MAX_SCHEMAS} schemas` })
  @ArrayMinSize(1, { message: '$property must hold at least one schema' })
  @IsArray({ message: '$property must be an array' })
  @IsDefined({ message: '$property is required' })
  schemas: SchemaInputDto[];
}
