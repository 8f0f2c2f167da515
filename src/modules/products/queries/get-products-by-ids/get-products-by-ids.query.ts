import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { BillingSchemaView, ProductView } from '../../dto/product.view';

export interface ProductsByIds {
  products: Record<string, ProductView>;
  schemas: Record<string, BillingSchemaView>;
}

/** Batch read of products and billing schemas by id (any version), for invoice expansions; one round trip each. */
export class GetProductsByIdsQuery extends Query<ProductsByIds> {
  constructor(
    readonly scope: Scope,
    readonly productIds: string[],
    readonly schemaIds: string[],
  ) {
    super();
  }
}
