import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import type { Currency } from '../../../shared/money/currency';
import { CurrencyField } from '../../../shared/validation/decorators';
import { ItemInputDto, MAX_ITEMS } from './item-input.dto';

export class QuoteProductDto {
  @ApiProperty({ example: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' })
  @Length(1, 200)
  @IsString()
  id: string;

  @ApiProperty({ example: 1, minimum: 1, maximum: 1000000 })
  @Min(1)
  @Max(1_000_000)
  @IsInt()
  quantity: number;

  @ApiProperty({ example: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10' })
  @Length(1, 200)
  @IsString()
  billing_schema_id: string;
}

/** `currency` plus exactly one of `product`, `invoice_id` or `items`. */
export class QuoteRequestDto {
  @CurrencyField({ description: 'The quote currency', example: 'ETHEREUM' })
  currency: Currency;

  @ApiPropertyOptional({ type: QuoteProductDto, description: 'Quote one catalog product' })
  @IsOptional()
  @ValidateNested()
  @Type(() => QuoteProductDto)
  @IsObject()
  product?: QuoteProductDto;

  @ApiPropertyOptional({ description: 'Quote an existing invoice of the caller in `currency`', example: 'invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  invoice_id?: string;

  @ApiPropertyOptional({ type: [ItemInputDto], description: `Quote custom items (the shapes of invoice creation), 1 to ${MAX_ITEMS}` })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => ItemInputDto)
  @IsObject({ each: true, message: '$property must hold item objects' })
  @ArrayMaxSize(MAX_ITEMS)
  @ArrayMinSize(1)
  @IsArray()
  items?: ItemInputDto[];
}
