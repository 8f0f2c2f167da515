import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ProductView } from '../../dto/product.view';

export const DEFAULT_PRODUCT_LIMIT = 20;

/** Products of the caller's scope, newest first; active versions only unless includeInactive. */
export class ListProductsQuery extends Query<ProductView[]> {
  constructor(
    readonly scope: Scope,
    readonly limit: number,
    readonly offset: number,
    readonly includeInactive: boolean,
  ) {
    super();
  }
}
