import { ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { AmountField, CurrencyListField, LimitField, OffsetField, TimeBoundField } from '../../../shared/validation/decorators';
import { PAYMENT_STATUSES } from '../domain/payment-status';

const EXPAND_DOC: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: ['provider'] },
  example: ['provider'],
  description: "Related records to include: `provider` adds the payment's provider as the organization has it",
};

/** Filters combine with AND; the values inside one array filter combine with OR (decisions §5). */
export class ListPaymentsRequestDto {
  @ApiPropertyOptional({ type: 'array', items: { type: 'string' }, example: ['prov_ethereum_usdt', 'prov_tron_usdt'], description: 'Provider ids' })
  @IsOptional()
  @Length(1, 200, { each: true, message: '$property values must be provider ids (1 to 200 characters)' })
  @IsString({ each: true, message: '$property values must be strings' })
  @IsArray({ message: '$property must be an array' })
  provider_id?: string[];

  @ApiPropertyOptional({ description: 'Only the payments of this invoice', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  invoice_id?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...PAYMENT_STATUSES] }, example: ['COMPLETED'] })
  @IsOptional()
  @IsIn(PAYMENT_STATUSES, { each: true, message: '$property values must be payment statuses' })
  @IsArray({ message: '$property must be an array' })
  status?: string[];

  @CurrencyListField(['USDT', 'USDC'])
  currency?: string[];

  @AmountField({ required: false, description: 'Inclusive lower bound on price_usd', example: '10' })
  price_usd_from?: string;

  @AmountField({ required: false, description: 'Inclusive upper bound on price_usd', example: '1000.50' })
  price_usd_to?: string;

  @TimeBoundField({ example: '2026-11-01' })
  created_at_from?: string;

  @TimeBoundField({ example: '2026-11-30 23:59:59' })
  created_at_to?: string;

  @ApiPropertyOptional(EXPAND_DOC)
  @IsOptional()
  @IsIn(['provider'], { each: true, message: '$property values must be among provider' })
  @IsArray({ message: '$property must be an array' })
  expand?: string[];

  @ApiPropertyOptional({
    description:
      'Cursor pagination: return the payments that come after this payment id (pass the last item of the previous page). ' +
      'Keeps deep pages as fast as the first; total still counts every match. Combines with the filters (use the same ones on every page); ' +
      "offset, if given, skips from the cursor. 400 when the id is not a payment of the caller's organization and mode.",
    example: 'payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01',
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

export class GetPaymentRequestDto {
  @ApiPropertyOptional(EXPAND_DOC)
  @IsOptional()
  @IsIn(['provider'], { each: true, message: '$property values must be among provider' })
  @IsArray({ message: '$property must be an array' })
  expand?: string[];
}
