import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';

/**
 * The currencies of the methods a live price of this organization can be paid with (decisions.md §17:
 * the providers it enabled that can take money live now), each once. A snapshot fixed for an invoice
 * later prices every one of them, so the rates guard needs them fresh. Asked by the rates module,
 * answered by the module that owns the providers (the arrow points providers -> rates).
 */
export class LivePaymentCurrenciesQuery extends Query<Currency[]> {
  constructor(readonly scope: Scope) {
    super();
  }
}
