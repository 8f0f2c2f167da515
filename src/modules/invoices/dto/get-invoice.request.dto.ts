import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsOptional } from 'class-validator';
import { CurrencyField } from '../../../shared/validation/decorators';
import { EXPANSIONS } from '../domain/payer-view';

export class GetInvoiceRequestDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...EXPANSIONS] },
    example: ['items', 'calculations'],
    description:
      'Related records to include. Without a key only items, items.product, calculations, organization, payments and payments.provider are allowed. ' +
      '`currency` adds currency_details; items.payment_intent adds payment_intent to PAYMENT_INTENT items.',
  })
  @IsOptional()
  @IsIn(EXPANSIONS, { each: true, message: `$property values must be among ${EXPANSIONS.join(', ')}` })
  @IsArray({ message: '$property must be an array' })
  expand?: string[];

  @CurrencyField({
    required: false,
    description:
      "Adds `summary`: the invoice total in this currency, at the invoice's own rates while its rate lock holds (until expires_at), else at current rates",
    example: 'BITCOIN',
  })
  currency?: string;
}

/** The query string of `GET /invoices/{id}`: the POST read's body, for clients that read with GET. */
export class GetInvoiceQueryParamsDto {
  @ApiPropertyOptional({
    type: 'string',
    example: 'items,payments',
    description: 'Related records to include, comma-separated or repeated (`expand=items&expand=payments`); the same names and payer rules as the POST read.',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((v) => String(v).split(','))
      .map((v) => v.trim())
      .filter(Boolean),
  )
  @IsIn(EXPANSIONS, { each: true, message: `$property values must be among ${EXPANSIONS.join(', ')}` })
  @IsArray({ message: '$property must be an array' })
  expand?: string[];

  @CurrencyField({
    required: false,
    description:
      "Adds `summary`: the invoice total in this currency, at the invoice's own rates while its rate lock holds (until expires_at), else at current rates",
    example: 'BITCOIN',
  })
  currency?: string;
}
