import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { QuoteView } from '../../domain/quote-view';
import type { ItemInput } from '../../domain/calculation';

/** What to quote: exactly one of the three must be given. */
/** The variants as the body gave them: a null one is given (and refused), an absent one is not. */
export interface QuoteVariants {
  product?: { id: string; billing_schema_id: string; quantity: number } | null;
  invoice_id?: string | null;
  items?: ItemInput[] | null;
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
