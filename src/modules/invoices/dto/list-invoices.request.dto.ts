import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { AmountField, CurrencyListField, LimitField, OffsetField, TimeBoundField } from '../../../shared/validation/decorators';
import { INVOICE_STATUSES } from '../domain/invoice-status';

/** Filters combine with AND; the values inside one array filter combine with OR. */
export class ListInvoicesRequestDto {
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...INVOICE_STATUSES] }, example: ['PENDING', 'COMPLETED'] })
  @IsOptional()
  @IsIn(INVOICE_STATUSES, { each: true, message: '$property values must be invoice statuses' })
  @IsArray({ message: '$property must be an array' })
  status?: string[];

  @CurrencyListField(['USD', 'USDT'])
  currency?: string[];

  @AmountField({ required: false, description: 'Inclusive lower bound on price_usd', example: '10' })
  price_usd_from?: string;

  @AmountField({ required: false, description: 'Inclusive upper bound on price_usd', example: '1000.50' })
  price_usd_to?: string;

  @TimeBoundField({ example: '2026-11-01' })
  created_at_from?: string;

  @TimeBoundField({ example: '2026-11-30 23:59:59' })
  created_at_to?: string;

  @ApiPropertyOptional({ description: 'Exact customer email, compared case-insensitively', example: 'jane@example.com' })
  @IsOptional()
  @MaxLength(320)
  @IsString()
  customer_email?: string;

  @ApiPropertyOptional({ description: 'Only invoices having a payment through this provider', example: 'prov_ethereum_usdt' })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  provider_id?: string;

  @ApiPropertyOptional({
    description:
      'Cursor pagination: return the invoices that come after this invoice id (pass the last item of the previous page). ' +
      'Keeps deep pages as fast as the first; total still counts every match. Combines with the filters (use the same ones on every page); ' +
      "offset, if given, skips from the cursor. 400 when the id is not a invoice of the caller's organization and mode.",
    example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  starting_after?: string;

  @LimitField()
  limit?: number;

  @OffsetField()
  offset?: number;
}
