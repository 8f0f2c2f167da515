import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsObject,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AmountField, CurrencyField, MetadataField, VariantField } from '../../../shared/validation/decorators';
import { CURRENCIES } from '../../../shared/money/currency';
import { MAX_EXPIRY_MINUTES, MIN_EXPIRY_MINUTES } from '../domain/invoice-timing';

/** Most items one invoice may have. */
export const MAX_INVOICE_ITEMS = 100;
export const MAX_ITEM_QUANTITY = 1_000_000;
export const ITEM_TYPES = ['PRODUCT', 'PAYMENT_INTENT'] as const;

/** Documentation-only shape of a PRODUCT item. */
export class ProductItemDoc {
  @ApiProperty({ enum: ['PRODUCT'] }) type: 'PRODUCT';
  @ApiProperty({ example: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) product_id: string;
  @ApiProperty({ example: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10' }) billing_schema_id: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ITEM_QUANTITY, example: 2 }) quantity: number;
}

/** Documentation-only shape of a PAYMENT_INTENT item. */
export class PaymentIntentItemDoc {
  @ApiProperty({ enum: ['PAYMENT_INTENT'] }) type: 'PAYMENT_INTENT';
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency', example: 'USDT' }) currency: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }],
    pattern: '^\\d+(\\.\\d{1,30})?$',
    example: '25.50',
    description: 'Exact decimal, at most 30 fractional digits',
  })
  price: string;
}

/**
 * One item of the creating request. PRODUCT items need product_id, billing_schema_id and quantity;
 * PAYMENT_INTENT items need currency and price. A field of the other type is refused, as is any unknown one.
 */
export class InvoiceItemInputDto {
  @IsIn(ITEM_TYPES, { message: '$property must be PRODUCT or PAYMENT_INTENT' })
  type: 'PRODUCT' | 'PAYMENT_INTENT';

  @Length(1, 200)
  @IsString()
  @VariantField('PRODUCT', ITEM_TYPES)
  product_id?: string;

  @Length(1, 200)
  @IsString()
  @VariantField('PRODUCT', ITEM_TYPES)
  billing_schema_id?: string;

  @Max(MAX_ITEM_QUANTITY)
  @Min(1)
  @IsInt({ message: '$property must be an integer' })
  @VariantField('PRODUCT', ITEM_TYPES)
  quantity?: number;

  @CurrencyField()
  @VariantField('PAYMENT_INTENT', ITEM_TYPES)
  currency?: string;

  @AmountField()
  @VariantField('PAYMENT_INTENT', ITEM_TYPES)
  price?: string;
}

export class CreateInvoiceRequestDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: MAX_INVOICE_ITEMS,
    items: { oneOf: [{ $ref: '#/components/schemas/ProductItemDoc' }, { $ref: '#/components/schemas/PaymentIntentItemDoc' }] },
    description: `At least 1 and at most ${MAX_INVOICE_ITEMS} items`,
  })
  @ValidateNested({ each: true })
  @Type(() => InvoiceItemInputDto)
  @IsObject({ each: true, message: '$property must hold item objects' })
  @ArrayMaxSize(MAX_INVOICE_ITEMS, { message: `$property must have at most ${MAX_INVOICE_ITEMS} entries` })
  @ArrayMinSize(1, { message: '$property must have at least 1 entry' })
  @IsArray({ message: '$property must be an array' })
  items: InvoiceItemInputDto[];

  @ApiPropertyOptional({ example: 'jane@example.com', maxLength: 254 })
  @IsOptional()
  @MaxLength(254)
  @IsEmail({}, { message: '$property must be an email address' })
  @IsString()
  customer_email?: string;

  @CurrencyField({ required: false, description: 'Calculation currency; optional when all items share one currency', example: 'USD' })
  currency?: string;

  @MetadataField()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_EXPIRY_MINUTES,
    maximum: MAX_EXPIRY_MINUTES,
    example: 30,
    description: 'How long the quoted rates hold and a payment is expected, in minutes (default INVOICE_EXPIRY_MINUTES, 15)',
  })
  @IsOptional()
  @Max(MAX_EXPIRY_MINUTES, { message: `$property must be at most ${MAX_EXPIRY_MINUTES}` })
  @Min(MIN_EXPIRY_MINUTES, { message: `$property must be at least ${MIN_EXPIRY_MINUTES}` })
  @IsInt({ message: '$property must be a whole number of minutes' })
  expires_in_minutes?: number;

  @ApiPropertyOptional({ example: 'https://shop.example.com/thanks', description: 'http(s) URL the payer is sent to after payment' })
  @IsOptional()
  @MaxLength(2000)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: '$property must be an http or https URL' })
  @IsString()
  redirect_url?: string;
}
