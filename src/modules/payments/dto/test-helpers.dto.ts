import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_CONFIRMATIONS } from '../domain/confirmations';
import { AmountField, IsTimeBound } from '../../../shared/validation/decorators';
import { PAYMENT_STATUSES } from '../domain/payment-status';

export class SimulatePaymentRequestDto {
  @ApiProperty({ description: "The invoice paid (of the caller's organization, test mode)", example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @Length(1, 200)
  @IsString()
  invoice_id: string;

  @ApiProperty({ description: 'An enabled provider (GET /providers/{invoice_id})', example: 'prov_ethereum_usdt' })
  @Length(1, 200)
  @IsString()
  provider_id: string;

  @AmountField({ description: "Amount in the provider's currency, at most the provider's decimals", example: '25.5' })
  price: string;

  @ApiPropertyOptional({
    enum: ['PENDING', 'COMPLETED'],
    default: 'PENDING',
    description: 'A new payment starts PENDING or COMPLETED; repeating an idempotency_key may report any later status',
  })
  @IsOptional()
  @IsIn(PAYMENT_STATUSES, { message: '$property must be one of PENDING, COMPLETED, FAILED, CANCELLED' })
  status?: string;

  @ApiPropertyOptional({ description: "The provider's reference; the same key reports the same payment (created once)", example: 'sim-0001' })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  idempotency_key?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_CONFIRMATIONS,
    example: 3,
    description:
      "Confirmations so far (crypto only). With a count the payment is COMPLETED once it reaches the provider's required_confirmations and PENDING below it, whatever status says. " +
      'Without one, PENDING starts at 0 and COMPLETED counts as fully confirmed.',
  })
  @IsOptional()
  @Max(MAX_CONFIRMATIONS, { message: `$property must be at most ${MAX_CONFIRMATIONS}` })
  @Min(0, { message: '$property must be at least 0' })
  @IsInt({ message: '$property must be a whole number' })
  confirmations?: number;

  @ApiPropertyOptional({
    type: String,
    description: 'When the payment happened (default now): YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601. price_usd uses the rates in force then.',
    example: '2026-11-21 10:04:58',
  })
  @IsOptional()
  @IsTimeBound()
  happened_at?: string;
}

export class SimulatePaymentStatusRequestDto {
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'COMPLETED', description: 'PENDING may move to COMPLETED, FAILED or CANCELLED; final statuses never change' })
  @IsIn(PAYMENT_STATUSES, { message: '$property must be one of PENDING, COMPLETED, FAILED, CANCELLED' })
  status: string;
}

export class SimulatePaymentConfirmationsRequestDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_CONFIRMATIONS,
    example: 12,
    description: "The payment's confirmations now; never lower than before",
  })
  @Max(MAX_CONFIRMATIONS, { message: `$property must be at most ${MAX_CONFIRMATIONS}` })
  @Min(0, { message: '$property must be at least 0' })
  @IsInt({ message: '$property must be a whole number' })
  confirmations: number;
}

export class SimulatedInvoiceStateDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ example: 'WAITING_FOR_CONFIRMATIONS', description: 'The invoice state after this report' }) status: string;
  @ApiProperty({ type: String, nullable: true, example: null }) substatus: string | null;
  @ApiProperty({ example: 'PENDING', description: 'The invoice state before this report' }) previous_status: string;
}

export class SimulatedPaymentDto {
  @ApiProperty({ example: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01' }) id: string;
  @ApiProperty({ enum: PAYMENT_STATUSES }) status: string;
  @ApiProperty({ description: 'Whether this report created the payment (false for a repeated idempotency_key)' }) created: boolean;
  @ApiProperty({ type: 'integer', example: 3, description: 'Confirmations so far' }) confirmations: number;
  @ApiProperty({ type: 'integer', example: 12, description: 'Confirmations it needs to count toward the invoice (0 for fiat)' }) required_confirmations: number;
  @ApiProperty({ type: SimulatedInvoiceStateDto, description: 'The paid invoice, as this report left it' }) invoice: SimulatedInvoiceStateDto;
}
