import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ProductView } from '../../dto/product.view';

/** One product version (active or not) with its schemas and tiers; 404 outside the caller's scope. */
export class GetProductQuery extends Query<ProductView> {
  constructor(
    readonly scope: Scope,
    readonly productId: string,
  ) {
    super();
  }
}
