import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Max, Min } from 'class-validator';
import type { Currency } from '../../../shared/money/currency';
import { AmountField, CurrencyField, VariantField } from '../../../shared/validation/decorators';

const ITEM_TYPES = ['PRODUCT', 'PAYMENT_INTENT'] as const;

/**
 * An invoice or quote item: a catalog PRODUCT (product_id, billing_schema_id, quantity) or an ad-hoc
 * PAYMENT_INTENT (currency, price). A field of the other kind is refused, as is any unknown one.
 */
export class ItemInputDto {
  @ApiProperty({ enum: ['PRODUCT', 'PAYMENT_INTENT'], example: 'PAYMENT_INTENT' })
  @IsIn(ITEM_TYPES, { message: '$property must be PRODUCT or PAYMENT_INTENT' })
  type: 'PRODUCT' | 'PAYMENT_INTENT';

  @ApiPropertyOptional({ description: 'PRODUCT: the product id', example: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' })
  @Length(1, 200)
  @IsString()
  @VariantField('PRODUCT', ITEM_TYPES)
  product_id?: string;

  @ApiPropertyOptional({ description: 'PRODUCT: the billing schema id', example: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10' })
  @Length(1, 200)
  @IsString()
  @VariantField('PRODUCT', ITEM_TYPES)
  billing_schema_id?: string;

  @ApiPropertyOptional({ description: 'PRODUCT: how many units (1 to 1,000,000)', example: 1, minimum: 1, maximum: 1000000 })
  @Min(1)
  @Max(1_000_000)
  @IsInt()
  @VariantField('PRODUCT', ITEM_TYPES)
  quantity?: number;

  @CurrencyField({ conditional: true, description: 'PAYMENT_INTENT: the currency of the price' })
  @VariantField('PAYMENT_INTENT', ITEM_TYPES)
  currency?: Currency;

  @AmountField({ conditional: true, acceptsNumber: false, description: 'PAYMENT_INTENT: the amount, a decimal string', example: '49.99' })
  @VariantField('PAYMENT_INTENT', ITEM_TYPES)
  price?: string;
}

/** Turns a validated item DTO into the item the pricing pipeline takes. */
export function toItemInput(dto: ItemInputDto) {
  return dto.type === 'PRODUCT'
    ? { type: 'PRODUCT' as const, product_id: dto.product_id as string, billing_schema_id: dto.billing_schema_id as string, quantity: dto.quantity as number }
    : { type: 'PAYMENT_INTENT' as const, currency: dto.currency as Currency, price: dto.price as string };
}

export const MAX_ITEMS = 100;
