import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/** OpenAPI schema of the envelope as a success carries it. */
export class SuccessEnvelopeDto {
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string' }], example: 200, description: 'HTTP status (the invoice state on short_state)' })
  status: number;
  @ApiProperty({ type: 'string', nullable: true, example: null }) error: null;
  @ApiProperty({ type: String, example: 'Success' }) message: string;
  @ApiProperty({ enum: ['development', 'production'], description: 'development for test-mode keys, production for live-mode keys' })
  env: string;
  @ApiProperty({ type: 'object', properties: { request_id: { type: 'string' } }, example: { request_id: '5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11' } })
  log: { request_id: string };
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, nullable: true, example: null }) validator: null;
  @ApiProperty({ type: 'string', nullable: true, example: null }) support_id: null;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ example: 400 }) status: number;
  @ApiProperty({ type: 'object', properties: {}, example: {} }) data: Record<string, never>;
  @ApiProperty({ example: 'Invalid request: items.0.price must not be negative' }) error: string;
  @ApiProperty({ type: 'string', nullable: true, example: null }) message: null;
  @ApiProperty({ enum: ['development', 'production'] }) env: string;
  @ApiProperty({ type: 'object', properties: { request_id: { type: 'string' } } }) log: { request_id: string };
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: { type: 'string' }, example: { 'items.0.price': 'must not be negative' } })
  validator: Record<string, string> | null;
  @ApiProperty({ format: 'uuid', example: '0b8e7f8c-2f7a-4d65-9a51-0c8c2a3f7d10' }) support_id: string;
  @ApiPropertyOptional({
    example: 'validation_failed',
    description:
      'Stable machine-readable code: validation_failed, malformed_json, unsupported_content_type, https_required, missing_api_key, malformed_api_key, invalid_api_key, read_only_key, live_mode_forbidden, clock_control_disabled, route_not_found, *_not_found, invalid_state_transition, concurrent_update, payload_too_large, rate_limited, idempotency_conflict, service_unavailable, rates_unavailable, internal_error',
  })
  code: string;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input (per-field messages in validator) or a refused state change',
  401: 'API key missing, malformed, unknown or revoked',
  403: 'The key lacks the right (read-only key on a write, live key on a test-only call)',
  404: "No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode (\"Invoice not found: it exists in test mode; this key is a live key.\"). Another organization's id gets the plain text.",
  409: 'A request with the same Idempotency-Key is still in flight',
  413: 'Body larger than the limit',
  429: 'Too many requests; see Retry-After',
  503: 'Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again)',
};

export function ApiErrors(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...statuses.map((status) => ApiResponse({ status, description: ERROR_TEXT[status] ?? 'Error', schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } })),
  );
}

interface EnvelopeDoc {
  status?: number;
  description?: string;
  /** The DTO class of `data`, or an inline schema. */
  type?: Type<unknown>;
  isArray?: boolean;
  schema?: Record<string, unknown>;
  example?: unknown;
  message?: string;
}

/** Documents a success response: the envelope with `data` of the given type and an example. */
export function ApiEnvelope(doc: EnvelopeDoc): MethodDecorator {
  const status = doc.status ?? 200;
  const dataSchema = doc.type
    ? doc.isArray
      ? { type: 'array', items: { $ref: getSchemaPath(doc.type) } }
      : { $ref: getSchemaPath(doc.type) }
    : (doc.schema ?? { type: 'object', additionalProperties: true });
  const example =
    doc.example === undefined
      ? undefined
      : {
          status,
          data: doc.example,
          error: null,
          message: doc.message ?? 'Success',
          env: 'development',
          log: { request_id: '5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11' },
          validator: null,
          support_id: null,
        };
  return applyDecorators(
    ApiExtraModels(SuccessEnvelopeDto, ...(doc.type ? [doc.type] : [])),
    ApiResponse({
      status,
      description: doc.description ?? 'Success',
      content: {
        'application/json': {
          // `data` is always present in a success: required, so a generated client reads it without a non-null assertion.
          schema: { allOf: [{ $ref: getSchemaPath(SuccessEnvelopeDto) }, { type: 'object', properties: { data: dataSchema }, required: ['data'] }] },
          ...(example ? { example } : {}),
        },
      },
    }),
  );
}
