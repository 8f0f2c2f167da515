import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { QuoteView } from '../../domain/quote-view';
import type { ItemInput } from '../../domain/calculation';

/** What to quote: exactly one of the three must be given. */
export interface QuoteVariants {
  product?: { id: string; billing_schema_id: string; quantity: number };
  invoice_id?: string;
  items?: ItemInput[];
}

/** A price quote with currency conversion, at the rates in force now. Nothing is stored. */
export class QuotePriceQuery extends Query<QuoteView> {
  constructor(
    readonly scope: Scope,
    readonly currency: Currency,
    readonly variants: QuoteVariants,
  ) {
    super();
  }
}
