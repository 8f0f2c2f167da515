import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ProductIdResult } from '../create-product/create-product.command';
import type { ProductRequestDto } from '../create-product/create-product.request.dto';

/** Replaces the whole product by writing a new version; answers the new version's id. */
export class ReplaceProductCommand extends Command<ProductIdResult> {
  constructor(
    readonly scope: Scope,
    readonly productId: string,
    readonly input: ProductRequestDto,
  ) {
    super();
  }
}
