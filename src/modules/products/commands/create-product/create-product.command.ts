import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ProductRequestDto } from './create-product.request.dto';

export interface ProductIdResult {
  id: string;
}

/** Creates version 1 of a product with its billing schemas and usage tiers. */
export class CreateProductCommand extends Command<ProductIdResult> {
  constructor(
    readonly scope: Scope,
    readonly input: ProductRequestDto,
  ) {
    super();
  }
}
