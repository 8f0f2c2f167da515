import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { ItemInput, PriceCalculation } from '../../domain/calculation';

/**
 * The one calculation pipeline shared by quotes and invoices: resolves catalog prices (active
 * product and schema required, unless `pinned`) and exchange rates as of `asOf` (default now), then runs the pure
 * steps. Throws ValidationFailedError with field paths (`items.0.product_id`, `currency`, ...).
 * `lockIn` (creating an invoice or a quote, changing an invoice's currency): the rates module's guarded
 * rates (PricingRatesQuery): in live mode, with live rate sources, the rates of the items' currencies,
 * the target and every method the organization can be paid with live must be recent, else
 * RatesUnavailableError (503).
 */
export class CalculatePricesQuery extends Query<PriceCalculation> {
  constructor(
    readonly scope: Scope,
    readonly items: ItemInput[],
    readonly currency: Currency | null,
    readonly asOf?: Date,
    readonly lockIn = false,
    /**
     * The items are an existing invoice's (a currency change, a quote or summary of it): their product and
     * schema versions were fixed when it was created, so a version the merchant has since replaced or
     * deactivated still prices them; only a new price needs the current one.
     */
    readonly pinned = false,
    /** Prices at this rates snapshot (an invoice's while its rate lock holds) instead of `asOf` or now. */
    readonly ratesSnapshotId: string | null = null,
  ) {
    super();
  }
}
