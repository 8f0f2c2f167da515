import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { Amount } from '../../../../shared/money/money';

/** What pricing needs of a catalog product and one of its billing schemas (any version, active or not). */
export interface PricingSchema {
  productId: string;
  productName: string;
  productActive: boolean;
  schemaId: string;
  schemaName: string;
  schemaActive: boolean;
  /** True when the schema belongs to the product. */
  schemaOfProduct: boolean;
  type: 'ONE_TIME' | 'RECURRING';
  currency: Currency;
  basePrice: Amount;
}

/**
 * Asked by quotes and invoices. Null when either id is not in the caller's organization and mode.
 * Callers decide what an inactive version means for them.
 */
export class GetPricingSchemaQuery extends Query<PricingSchema | null> {
  constructor(
    readonly scope: Scope,
    readonly productId: string,
    readonly billingSchemaId: string,
  ) {
    super();
  }
}
