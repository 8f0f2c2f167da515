import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { parseAmount } from '../../../../shared/money/money';
import { GetPricingSchemaQuery } from '../../../products';
import { PricingRatesQuery, RatesAsOfQuery } from '../../../rates';
import { amountsPastLimit, deriveCurrency, PricedItem, runPipeline } from '../../domain/pricing';
import type { PriceCalculation } from '../../domain/calculation';
import { CalculatePricesQuery } from './calculate-prices.query';

@QueryHandler(CalculatePricesQuery)
export class CalculatePricesHandler implements IQueryHandler<CalculatePricesQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ scope, items, currency, asOf, lockIn, pinned, ratesSnapshotId }: CalculatePricesQuery): Promise<PriceCalculation> {
    const errors: Record<string, string> = {};
    const priced: PricedItem[] = [];
    for (const [i, input] of items.entries()) {
      if (input.type === 'PAYMENT_INTENT') {
        priced.push({ type: 'PAYMENT_INTENT', input, currency: input.currency, price: parseAmount(input.price) });
        continue;
      }
      const schema = await this.queries.execute(new GetPricingSchemaQuery(scope, input.product_id, input.billing_schema_id));
      if (!schema || !schema.schemaOfProduct) {
        errors[schema ? `items.${i}.billing_schema_id` : `items.${i}.product_id`] = schema
          ? 'is not a billing schema of that product'
          : 'no such product with that billing schema';
      } else if (!pinned && !schema.productActive) {
        errors[`items.${i}.product_id`] = 'is an inactive product version; use the current one';
      } else if (!pinned && !schema.schemaActive) {
        errors[`items.${i}.billing_schema_id`] = 'is an inactive billing schema version; use the current one';
      } else {
        priced.push({ type: 'PRODUCT', input, title: `${schema.productName} (${schema.schemaName})`, currency: schema.currency, unitPrice: schema.basePrice });
      }
    }
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);

    const target = deriveCurrency(priced, currency);
    if (!target) throw new ValidationFailedError({ currency: 'is required when the items do not all share one currency' });
    // A price locked in now takes guarded rates: in live mode, fresh ones for every currency it converts
    // through and for every method it can be paid with (its snapshot later prices them all).
    const rates = await this.queries.execute(
      ratesSnapshotId !== null
        ? new RatesAsOfQuery(undefined, ratesSnapshotId)
        : lockIn && !asOf
          ? new PricingRatesQuery(scope, [target, ...priced.map((p) => p.currency)], true)
          : new RatesAsOfQuery(asOf),
    );
    const result = runPipeline(priced, target, rates.usd);
    const tooLarge = amountsPastLimit(result, target);
    if (tooLarge) throw new ValidationFailedError(tooLarge);
    return { currency: target, ...result, rates: { snapshotId: rates.snapshotId, takenAt: rates.takenAt, usd: rates.usd } };
  }
}
