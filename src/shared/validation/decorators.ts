import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, Max, Min, ValidateBy, ValidateIf, ValidationOptions } from 'class-validator';
import { AMOUNT_PROBLEM_MESSAGES, amountProblem } from '../money/money';
import { canonicalCurrency, CURRENCIES, CURRENCY_TICKERS } from '../money/currency';
import { JsonNumberText } from '../http/json-number';
import { parseTimeBound } from '../time/time';

/**
 * Composite decorators: each one declares validation and the OpenAPI schema of a field together,
 * so the documentation cannot drift from what the service accepts.
 */

function normalizeDecimalInput(value: unknown): unknown {
  if (value instanceof JsonNumberText) return value.text;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return value;
}

export function IsAmount(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAmount',
      validator: {
        validate: (value) => typeof value === 'string' && amountProblem(value) === null,
        defaultMessage: (args) => {
          const value = args?.value;
          if (typeof value !== 'string') return `${args?.property} must be a decimal string or number`;
          return `${args?.property} ${AMOUNT_PROBLEM_MESSAGES[amountProblem(value) ?? 'not_a_decimal']}`;
        },
      },
    },
    options,
  );
}

interface FieldDoc {
  description?: string;
  example?: unknown;
  required?: boolean;
  /** Required only in some cases (decided by a ValidateIf beside it): optional in the docs, never skipped when absent. */
  conditional?: boolean;
  /** null is accepted (an optional field that may be sent as null). */
  nullable?: boolean;
}

function presence(doc: FieldDoc, api: Record<string, unknown>): PropertyDecorator[] {
  if (doc.required === false) return [IsOptional(), ApiPropertyOptional(api)];
  return [doc.conditional ? ApiPropertyOptional(api) : ApiProperty(api)];
}

/** An exact, non-negative decimal amount given as a string or a JSON number; read as a decimal string. */
export function AmountField(doc: FieldDoc & { acceptsNumber?: boolean } = {}): PropertyDecorator {
  const api = {
    description: doc.description,
    example: doc.example ?? '10.50',
    // OpenAPI 3.0: `nullable` needs a `type` beside it, so null is allowed on the string alternative.
    oneOf: doc.acceptsNumber === false ? undefined : [{ type: 'string', ...(doc.nullable ? { nullable: true } : {}) }, { type: 'number' }],
    type: doc.acceptsNumber === false ? String : undefined,
    nullable: doc.acceptsNumber === false ? doc.nullable : undefined,
    pattern: '^\\d+(\\.\\d{1,30})?$',
  };
  return applyDecorators(
    Transform(({ obj, key }) => normalizeDecimalInput(obj[key])),
    ...presence(doc, api),
    IsAmount(),
  );
}

const TICKERS_NOTE = Object.entries(CURRENCY_TICKERS)
  .map(([ticker, currency]) => `${ticker} (${currency})`)
  .join(', ');

/** The refusal names every accepted value, so a client learns what to send from the answer alone. */
const CURRENCY_MESSAGE = `$property must be one of ${CURRENCIES.join(', ')}; these tickers are read as the currency they name: ${TICKERS_NOTE}`;

export function CurrencyField(doc: FieldDoc = {}): PropertyDecorator {
  const description = [doc.description, `Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: ${TICKERS_NOTE}.`]
    .filter(Boolean)
    .join('. ');
  const api = { enum: CURRENCIES, enumName: 'Currency', description, example: doc.example ?? 'USD' };
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => canonicalCurrency(value)),
    ...presence(doc, api),
    IsIn(CURRENCIES, { message: CURRENCY_MESSAGE }),
  );
}

/** An optional list filter of currencies (tickers read as in CurrencyField). */
export function CurrencyListField(example: string[]): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'array',
      items: { type: 'string', enum: [...CURRENCIES] },
      example,
      description: `Any letter case is read (usd is USD). Tickers are accepted: ${TICKERS_NOTE}.`,
    }),
    Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map(canonicalCurrency) : value)),
    IsOptional(),
    IsIn(CURRENCIES, { each: true, message: `$property values must be among ${CURRENCIES.join(', ')}` }),
    IsArray({ message: '$property must be an array' }),
  );
}

export function IsTimeBound(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTimeBound',
      validator: {
        validate: (value) => typeof value === 'string' && parseTimeBound(value, 'from') !== null,
        defaultMessage: (args) => `${args?.property} must be a time as YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD or ISO 8601`,
      },
    },
    options,
  );
}

export function TimeBoundField(doc: FieldDoc = {}): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    ApiPropertyOptional({
      type: String,
      description: doc.description ?? 'Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601',
      example: doc.example,
    }),
    IsTimeBound(),
  );
}

const toIntIfText = ({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
  const value = obj[key];
  return typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
};

/** `limit` of every list: default 20, at most 100. Query strings are read as integers. */
export function LimitField(): PropertyDecorator {
  return applyDecorators(
    Transform(toIntIfText),
    IsOptional(),
    IsInt({ message: '$property must be an integer' }),
    Min(0, { message: '$property must be at least 0' }),
    Max(100, { message: '$property must be at most 100' }),
    ApiPropertyOptional({ type: Number, minimum: 0, maximum: 100, default: 20, description: 'Maximum number of entries returned (default 20, at most 100)' }),
  );
}

export function OffsetField(): PropertyDecorator {
  return applyDecorators(
    Transform(toIntIfText),
    IsOptional(),
    IsInt({ message: '$property must be an integer' }),
    Min(0, { message: '$property must be at least 0' }),
    ApiPropertyOptional({ type: Number, minimum: 0, default: 0, description: 'Number of entries skipped (default 0)' }),
  );
}

export interface StringMapLimits {
  maxKeys: number;
  maxKeyLength: number;
  maxValueLength: number;
}

export const METADATA_LIMITS: StringMapLimits = { maxKeys: 50, maxKeyLength: 40, maxValueLength: 500 };

/** A flat object of string keys to string values (metadata), with bounded size. */
export function IsStringMap(limits: StringMapLimits = METADATA_LIMITS, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (value) => {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= limits.maxKeys &&
            entries.every(([k, v]) => k.length > 0 && k.length <= limits.maxKeyLength && typeof v === 'string' && v.length <= limits.maxValueLength)
          );
        },
        defaultMessage: (args) =>
          `${args?.property} must be an object of at most ${limits.maxKeys} string keys (1-${limits.maxKeyLength} characters) to string values (at most ${limits.maxValueLength} characters)`,
      },
    },
    options,
  );
}

export function MetadataField(doc: FieldDoc = {}): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsStringMap(),
    ApiPropertyOptional({
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        doc.description ??
        `String keys to string values; at most ${METADATA_LIMITS.maxKeys} keys, keys up to ${METADATA_LIMITS.maxKeyLength} and values up to ${METADATA_LIMITS.maxValueLength} characters`,
      example: doc.example ?? { order_id: '1234' },
    }),
  );
}

/**
 * A field of one variant of an object tagged by `type` (an invoice item is a PRODUCT or a PAYMENT_INTENT):
 * validated when the object is of that variant, and refused when an object of another known variant
 * carries it (it would be dropped unread). Put it nearest the property, so it is checked first.
 */
export function VariantField(variant: string, variants: readonly string[]): PropertyDecorator {
  const typeOf = (o: object) => (o as { type?: unknown }).type;
  return applyDecorators(
    ValidateIf((o: object, value: unknown) => typeOf(o) === variant || (variants.includes(typeOf(o) as string) && value !== undefined)),
    ValidateBy({
      name: 'variantField',
      validator: {
        validate: (_value, args) => typeOf(args?.object ?? {}) === variant,
        defaultMessage: (args) => `${args?.property} is not a field of ${String(typeOf(args?.object ?? {}))} items`,
      },
    }),
  );
}
