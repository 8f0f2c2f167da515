import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { CurrencyField } from '../../../shared/validation/decorators';
import { INVOICE_STATUSES } from '../domain/invoice-status';

/** Exactly one of status (merchant move, key required) and currency (while PENDING; payers may too). */
export class UpdateInvoiceRequestDto {
  @ApiPropertyOptional({
    enum: INVOICE_STATUSES,
    example: 'VOIDED',
    description: 'Merchant moves: PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED (substatus MARKED_PAID)',
  })
  // Absent is left out; null is checked, and refused (it names no status).
  @ValidateIf((_, value) => value !== undefined)
  @IsIn(INVOICE_STATUSES, { message: `$property must be one of ${INVOICE_STATUSES.join(', ')}` })
  status?: string;

  // Absent is left out; null is checked, and refused: it would otherwise read as "the items' currency".
  @ValidateIf((_, value) => value !== undefined)
  @CurrencyField({
    conditional: true,
    description: 'New invoice currency; recomputes the calculations at current rates (PENDING only)',
    example: 'ETHEREUM',
  })
  currency?: string;
}
