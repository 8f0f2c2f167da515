import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PAYMENT_STATUSES } from '../domain/payment-status';
import { TEST_PAYMENT_KINDS } from '../domain/test-payment';

export class TestPaymentRequestDto {
  @ApiProperty({ example: 'prov_card_usd', description: 'An enabled provider of the invoice (GET /providers/{invoice_id}), usually one with has_rail false' })
  @Length(1, 100)
  @IsString()
  provider_id: string;

  @ApiProperty({
    enum: TEST_PAYMENT_KINDS,
    example: 'exact',
    description:
      "exact: what is still due, in the provider's currency at current rates, rounded up to its decimals (the invoice completes); " +
      'partial: half of it, rounded down (PARTIALLY_PAID); over: a tenth more than it (COMPLETED, PAID_OVER)',
  })
  @IsIn([...TEST_PAYMENT_KINDS], { message: `$property must be one of ${TEST_PAYMENT_KINDS.join(', ')}` })
  @IsString()
  kind: string;

  @ApiPropertyOptional({
    example: 'click-5f1d2c9a',
    maxLength: 100,
    description:
      'Any text of the caller (the checkout page sends a fresh one per click): the same key again for the same invoice answers the payment it made ' +
      '(created false) instead of paying twice',
  })
  @IsOptional()
  @Matches(/^[\x21-\x7e]+$/, { message: '$property must be printable ASCII without spaces' })
  @Length(1, 100)
  @IsString()
  idempotency_key?: string;
}

class TestPaymentInvoiceDto {
  @ApiProperty({ example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ example: 'COMPLETED', description: 'The invoice state after the payment' }) status: string;
  @ApiProperty({ nullable: true, type: String, example: null, description: 'PAID_OVER after an over payment, PAID_PARTIAL after a partial one' }) substatus:
    string | null;
}

export class TestPaymentDto {
  @ApiProperty({ example: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01' }) id: string;
  @ApiProperty({ enum: TEST_PAYMENT_KINDS, example: 'exact' }) kind: string;
  @ApiProperty({ example: 'prov_card_usd' }) provider_id: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({
    type: String,
    pattern: '^\\d+\\.\\d{30}$',
    example: '19.750000000000000000000000000000',
    description: "Amount paid in the provider's currency",
  })
  price: string;
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'COMPLETED', description: 'A test payment is COMPLETED at once' }) status: string;
  @ApiProperty({ example: true, description: 'False when idempotency_key named a payment made before (nothing was paid again)' }) created: boolean;
  @ApiProperty({ type: TestPaymentInvoiceDto }) invoice: TestPaymentInvoiceDto;
}

export const TEST_PAYMENT_EXAMPLE = {
  id: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01',
  kind: 'exact',
  provider_id: 'prov_card_usd',
  currency: 'USD',
  price: '19.750000000000000000000000000000',
  status: 'COMPLETED',
  created: true,
  invoice: { id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', status: 'COMPLETED', substatus: null },
};
