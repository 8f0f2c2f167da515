import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { boundedTotalDocs } from '../../../shared/db/bounded-count';
import { EVENT_TYPES, eventTypesMessage, MAX_EVENT_TYPES } from '../../../shared/events/event-types';
import { LimitField, OffsetField, TimeBoundField } from '../../../shared/validation/decorators';

export class EventDataDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The resource as of the event, in the shape its own endpoint returns' })
  object: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'On updates: the changed fields with their values before the change',
    example: { status: 'PENDING' },
  })
  previous_attributes?: Record<string, unknown>;
}

export class EventDto {
  @ApiProperty({ example: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) id: string;
  @ApiProperty({ enum: EVENT_TYPES as string[], enumName: 'EventType', example: 'invoice.completed' }) type: string;
  @ApiProperty({ example: '2026-11-21 10:00:00', description: 'UTC, YYYY-MM-DD HH:MM:SS' }) created_at: string;
  @ApiProperty({ example: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e00' }) organization_id: string;
  @ApiProperty({ enum: ['test', 'live'] }) mode: string;
  @ApiProperty({ type: EventDataDto }) data: EventDataDto;
}

export class EventListDto {
  @ApiProperty({ type: [EventDto] }) items: EventDto[];
  @ApiProperty({ example: 1, description: boundedTotalDocs('events').total }) total: number;
  @ApiProperty({ example: true, description: boundedTotalDocs('events').total_exact }) total_exact: boolean;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export const EVENT_EXAMPLE = {
  id: 'event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  type: 'invoice.updated',
  created_at: '2026-11-21 10:00:00',
  organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e00',
  mode: 'test',
  data: {
    object: { id: 'invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11', status: 'WAITING_FOR_CONFIRMATIONS' },
    previous_attributes: { status: 'PENDING' },
  },
};

const toList = ({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value);

export class ListEventsRequestDto {
  @ApiPropertyOptional({
    oneOf: [
      // The live registry (modules declare their types as they load): read when the document is made.
      { type: 'string', enum: EVENT_TYPES as string[] },
      { type: 'array', items: { type: 'string', enum: EVENT_TYPES as string[] } },
    ],
    description: 'One event type or several (any of them)',
    example: ['invoice.completed', 'payment.updated'],
  })
  @Transform(toList)
  @IsOptional()
  @IsIn(EVENT_TYPES, { each: true, message: eventTypesMessage(false) })
  @ArrayMaxSize(MAX_EVENT_TYPES)
  @ArrayMinSize(1)
  @IsArray({ message: '$property must be an event type or an array of event types' })
  type?: string[];

  @TimeBoundField({ example: '2026-11-01' })
  created_at_from?: string;

  @TimeBoundField({ example: '2026-11-30 23:59:59' })
  created_at_to?: string;

  @LimitField()
  limit?: number;

  @OffsetField()
  offset?: number;
}
