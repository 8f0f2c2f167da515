import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { boundedTotalDocs } from '../../../shared/db/bounded-count';
import { eventTypesMessage, MAX_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../../shared/events/event-types';
import { LimitField, OffsetField } from '../../../shared/validation/decorators';
import { MAX_URL_LENGTH } from '../domain/endpoint-url';

/** The live registry (modules declare their types as they load), with `*`. */
const SUBSCRIBABLE = SUBSCRIBABLE_EVENT_TYPES as string[];
const toList = ({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value);
const EVENT_TYPES_DOC = {
  oneOf: [
    { type: 'string', enum: SUBSCRIBABLE },
    { type: 'array', items: { type: 'string', enum: SUBSCRIBABLE } },
  ],
  description: 'The event types sent to this endpoint, or `*` for all (including types added later)',
  example: ['payment.created', 'payment.updated', 'invoice.completed'],
};
const EVENT_TYPES_MESSAGE = eventTypesMessage(true);

export class CreateWebhookRequestDto {
  @ApiProperty({
    example: 'https://merchant.example.com/webhooks',
    maxLength: MAX_URL_LENGTH,
    description: 'Where deliveries are POSTed. With the address guard on (production): https, public addresses only',
  })
  @MaxLength(MAX_URL_LENGTH)
  @IsString()
  url: string;

  @ApiProperty(EVENT_TYPES_DOC)
  @Transform(toList)
  @IsIn(SUBSCRIBABLE, { each: true, message: EVENT_TYPES_MESSAGE })
  @ArrayMaxSize(MAX_EVENT_TYPES)
  @ArrayMinSize(1)
  @IsArray({ message: '$property must be an event type, * or an array of them' })
  event_types: string[];

  @ApiPropertyOptional({ type: String, example: 'Order fulfilment', maxLength: 500, nullable: true })
  @IsOptional()
  @MaxLength(500)
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ default: true, description: 'false registers it paused' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateWebhookRequestDto {
  @ApiPropertyOptional({ example: 'https://merchant.example.com/webhooks/v2', maxLength: MAX_URL_LENGTH })
  // Absent leaves it as it is; null is checked, and refused (an endpoint has a URL).
  @ValidateIf((_, v) => v !== undefined)
  @MaxLength(MAX_URL_LENGTH)
  @IsString()
  url?: string;

  @ApiPropertyOptional(EVENT_TYPES_DOC)
  @Transform(toList)
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(SUBSCRIBABLE, { each: true, message: EVENT_TYPES_MESSAGE })
  @ArrayMaxSize(MAX_EVENT_TYPES)
  @ArrayMinSize(1)
  @IsArray({ message: '$property must be an event type, * or an array of them' })
  event_types?: string[];

  @ApiPropertyOptional({ type: String, example: 'Order fulfilment', maxLength: 500, nullable: true, description: 'null clears it' })
  @ValidateIf((_, v) => v !== undefined && v !== null)
  @MaxLength(500)
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    example: true,
    description: 'false pauses the endpoint (its pending deliveries are cancelled); true re-enables it and resets its failure count',
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsBoolean()
  enabled?: boolean;
}

export class RotateSecretRequestDto {
  @ApiPropertyOptional({
    default: 0,
    minimum: 0,
    maximum: 604800,
    example: 86400,
    description: 'Seconds during which deliveries are also signed with the old secret (0: the old secret stops at once)',
  })
  @IsOptional()
  @Max(604800)
  @Min(0)
  @IsInt()
  grace_period_seconds?: number;
}

export class RedeliverRequestDto {
  @ApiProperty({ example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f', description: 'An event of the same organization and mode' })
  @Length(1, 200)
  @IsString()
  event_id: string;
}

export class ListWebhooksQueryDto {
  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

export class ListAttemptsRequestDto {
  @ApiPropertyOptional({ example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f', description: 'Only the attempts for this event' })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  event_id?: string;

  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

export class WebhookEndpointDto {
  @ApiProperty({ example: 'webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) id: string;
  @ApiProperty({ example: 'https://merchant.example.com/webhooks' }) url: string;
  @ApiProperty({ type: String, nullable: true, example: 'Order fulfilment' }) description: string | null;
  @ApiProperty({ type: [String], example: ['payment.created', 'payment.updated', 'invoice.completed'] }) event_types: string[];
  @ApiProperty({ example: true }) enabled: boolean;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why the endpoint was disabled' }) disabled_reason: string | null;
  @ApiProperty({ example: 0, description: 'Deliveries in a row that failed every attempt' }) consecutive_failures: number;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) updated_at: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'Signing secret (Standard Webhooks). Shown only here: store it' })
  secret: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) items: WebhookEndpointDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class WebhookAttemptDto {
  @ApiProperty({ example: 'attempt_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) id: string;
  @ApiProperty({ example: 'delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) delivery_id: string;
  @ApiProperty({ example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) event_id: string;
  @ApiProperty({ example: 'invoice.completed' }) event_type: string;
  @ApiProperty({ example: 1, description: '1 for the first attempt of a delivery' }) attempt_number: number;
  @ApiProperty({ example: 'https://merchant.example.com/webhooks' }) url: string;
  @ApiProperty({ example: false }) succeeded: boolean;
  @ApiProperty({ type: Number, nullable: true, example: 500 }) response_status: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'Internal Server Error', description: 'The first 1024 characters of the answer' }) response_body:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: 'endpoint answered HTTP 500' }) error: string | null;
  @ApiProperty({ example: 84 }) duration_ms: number;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-21 10:00:05', description: 'When the next attempt is due, if one was scheduled' })
  next_attempt_at: string | null;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
}

export class WebhookAttemptListDto {
  @ApiProperty({ type: [WebhookAttemptDto] }) items: WebhookAttemptDto[];
  @ApiProperty({ example: 1, description: boundedTotalDocs('attempts').total }) total: number;
  @ApiProperty({ example: true, description: boundedTotalDocs('attempts').total_exact }) total_exact: boolean;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class QueuedDeliveryDto {
  @ApiProperty({ example: 'delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) delivery_id: string;
  @ApiProperty({ example: 'webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) endpoint_id: string;
  @ApiProperty({ example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) event_id: string;
  @ApiProperty({ enum: ['pending'] }) status: string;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
}

export class DeletedWebhookDto {
  @ApiProperty({ example: 'webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) id: string;
  @ApiProperty({ example: true }) deleted: boolean;
}

export const ENDPOINT_EXAMPLE = {
  id: 'webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  url: 'https://merchant.example.com/webhooks',
  description: 'Order fulfilment',
  event_types: ['invoice.completed', 'payment.created', 'payment.updated'],
  enabled: true,
  disabled_reason: null,
  consecutive_failures: 0,
  created_at: '2026-11-21 10:00:00',
  updated_at: '2026-11-21 10:00:00',
};

export const ATTEMPT_EXAMPLE = {
  id: 'attempt_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  delivery_id: 'delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  event_id: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  event_type: 'invoice.completed',
  attempt_number: 1,
  url: 'https://merchant.example.com/webhooks',
  succeeded: false,
  response_status: 500,
  response_body: 'Internal Server Error',
  error: 'endpoint answered HTTP 500',
  duration_ms: 84,
  next_attempt_at: '2026-11-21 10:00:05',
  created_at: '2026-11-21 10:00:00',
};
