import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AmountField, IsTimeBound, LimitField, MetadataField, OffsetField } from '../../../shared/validation/decorators';
import { SUBSCRIPTION_STATUSES } from '../domain/billing';

export const MAX_SUBSCRIPTION_QUANTITY = 1_000_000;
export const MAX_USAGE_BATCH = 100;

const TIME_TEXT = 'YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601';

export class CreateSubscriptionRequestDto {
  @ApiProperty({ example: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f', description: 'An active product version of the caller' })
  @Length(1, 200)
  @IsString()
  product_id: string;

  @ApiProperty({
    example: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10',
    description: 'A RECURRING billing schema of that product (else 400 billing_schema_id)',
  })
  @Length(1, 200)
  @IsString()
  billing_schema_id: string;

  @ApiProperty({ example: 'jane@example.com', maxLength: 254, description: 'Who is billed; every period invoice carries it' })
  @MaxLength(254)
  @IsEmail({}, { message: '$property must be an email address' })
  @IsString()
  customer_email: string;

  @ApiPropertyOptional({ example: 'Jane Doe', maxLength: 200 })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  customer_name?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_SUBSCRIPTION_QUANTITY,
    default: 1,
    example: 1,
    description: 'Seats: the base price is charged this many times',
  })
  @IsOptional()
  @Max(MAX_SUBSCRIPTION_QUANTITY)
  @Min(1)
  @IsInt({ message: '$property must be an integer' })
  quantity?: number;

  @ApiPropertyOptional({
    type: String,
    example: '2026-12-01 00:00:00',
    description: `When the first period starts (${TIME_TEXT}); default now (the test clock's now in test mode). At most 24 hours in the past.`,
  })
  @IsOptional()
  @IsTimeBound()
  starts_at?: string;

  @MetadataField()
  metadata?: Record<string, string>;
}

export class CancelSubscriptionRequestDto {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'true: stays ACTIVE until the current period ends, then CANCELED (ARREARS still bills that period); false: CANCELED now, nothing more billed',
  })
  @IsOptional()
  @IsBoolean({ message: '$property must be a boolean' })
  at_period_end?: boolean;
}

export class ListSubscriptionsRequestDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
    example: ['ACTIVE', 'PAST_DUE'],
    description: 'Only subscriptions in one of these statuses: repeat the parameter or separate the values with commas (they combine with OR)',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',') : value))
  @IsOptional()
  @IsIn(SUBSCRIPTION_STATUSES, { each: true, message: `$property must be among ${SUBSCRIPTION_STATUSES.join(', ')}` })
  @IsArray({ message: '$property must be a status or a list of statuses' })
  status?: Array<(typeof SUBSCRIPTION_STATUSES)[number]>;

  @ApiPropertyOptional({ example: 'jane@example.com', description: 'Only subscriptions of this customer (case-insensitive, exact)' })
  @IsOptional()
  @MaxLength(320)
  @IsString()
  customer_email?: string;

  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

export class UsageEventRequestDto {
  @ApiProperty({
    example: 'evt_2026_11_27_000123',
    maxLength: 200,
    description: "The caller's unique id of the event: sending it again records nothing (200 with the first record)",
  })
  @Length(1, 200)
  @IsString()
  id: string;

  @ApiProperty({ example: 'subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01' })
  @Length(1, 200)
  @IsString()
  subscription_id: string;

  @ApiProperty({ example: 'api_calls', description: "A metric_key of the subscription's billing schema" })
  @Length(1, 200)
  @IsString()
  metric_key: string;

  @AmountField({
    required: false,
    example: '1',
    description: 'The measured value (default 1); COUNT ignores it, UNIQUE_COUNT counts distinct unique_key (or values)',
  })
  value?: string;

  @ApiPropertyOptional({
    example: 'user_42',
    maxLength: 200,
    description: 'What UNIQUE_COUNT counts distinct values of (e.g. a user id); without it, the value',
  })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  unique_key?: string;

  @ApiPropertyOptional({
    type: String,
    example: '2026-11-27 10:15:00',
    description: `When it happened (${TIME_TEXT}); default now. Not before the subscription starts.`,
  })
  @IsOptional()
  @IsTimeBound()
  timestamp?: string;
}

export class UsageBatchRequestDto {
  @ApiProperty({
    type: [UsageEventRequestDto],
    minItems: 1,
    maxItems: MAX_USAGE_BATCH,
    description: `1 to ${MAX_USAGE_BATCH} events, recorded together or not at all`,
  })
  @ValidateNested({ each: true })
  @Type(() => UsageEventRequestDto)
  @IsObject({ each: true, message: '$property must hold event objects' })
  @ArrayMaxSize(MAX_USAGE_BATCH, { message: `$property must have at most ${MAX_USAGE_BATCH} entries` })
  @ArrayMinSize(1, { message: '$property must have at least 1 entry' })
  @IsArray({ message: '$property must be an array' })
  events: UsageEventRequestDto[];
}
