import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CurrencyField } from '../../../shared/validation/decorators';
import { INVOICE_STATUSES } from '../domain/invoice-status';

/** Exactly one of status (merchant move, key required) and currency (while PENDING; payers may too). */
export class UpdateInvoiceRequestDto {
  @ApiPropertyOptional({
    enum: INVOICE_STATUSES,
    example: 'VOIDED',
    description: 'Merchant moves: PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED (substatus MARKED_PAID)',
  })
  @IsOptional()
  @IsIn(INVOICE_STATUSES, { message: `$property must be one of ${INVOICE_STATUSES.join(', ')}` })
  status?: string;

  @CurrencyField({ required: false, description: 'New invoice currency; recomputes the calculations at current rates (PENDING only)', example: 'ETHEREUM' })
  currency?: string;
}
