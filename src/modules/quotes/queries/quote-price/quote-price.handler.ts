import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { GetInvoiceItemsQuery } from '../../ports/get-invoice-items.query';
import { QuoteView, quoteView } from '../../domain/quote-view';
import type { ItemInput } from '../../domain/calculation';
import { CalculatePricesQuery } from '../calculate-prices/calculate-prices.query';
import { QuotePriceQuery } from './quote-price.query';

const PRODUCT_FIELDS: Record<string, string> = {
  'items.0.product_id': 'product.id',
  'items.0.billing_schema_id': 'product.billing_schema_id',
  items: 'product',
};

/** A field of the one item the product variant prices, named as the request names it (`product.quantity`, ...). */
function productField(field: string): string {
  return PRODUCT_FIELDS[field] ?? (field.startsWith('items.0.') ? `product.${field.slice('items.0.'.length)}` : field);
}

@QueryHandler(QuotePriceQuery)
export class QuotePriceHandler implements IQueryHandler<QuotePriceQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ scope, currency, variants }: QuotePriceQuery): Promise<QuoteView> {
    const given = (['product', 'invoice_id', 'items'] as const).filter((k) => variants[k] !== undefined);
    if (given.length !== 1) {
      const message = 'give exactly one of product, invoice_id or items';
      throw new ValidationFailedError(given.length ? Object.fromEntries(given.map((k) => [k, message])) : { product: message });
    }
    // Null passes the DTO's optional checks; as the one variant given it describes nothing to price.
    if (variants[given[0]] === null) throw new ValidationFailedError({ [given[0]]: 'must not be null: give exactly one of product, invoice_id or items' });
    let items: ItemInput[];
    // An invoice's own rates while its rate lock holds: the amounts its payment addresses ask for.
    let held: string | null = null;
    if (variants.product) {
      const { id, billing_schema_id, quantity } = variants.product;
      items = [{ type: 'PRODUCT', product_id: id, billing_schema_id, quantity }];
    } else if (typeof variants.invoice_id === 'string') {
      const found = await this.queries.execute(new GetInvoiceItemsQuery(scope, variants.invoice_id));
      if (!found) throw new NotFoundError('invoice');
      items = found.items;
      held = found.heldRatesSnapshotId;
    } else {
      items = variants.items ?? [];
    }
    try {
      return quoteView(
        await this.queries.execute(new CalculatePricesQuery(scope, items, currency, undefined, held === null, variants.invoice_id !== undefined, held)),
      );
    } catch (e) {
      if (e instanceof ValidationFailedError && variants.product && e.fields) {
        // The product variant names its fields under `product`, not `items.0`.
        const renamed = Object.fromEntries(Object.entries(e.fields).map(([k, v]) => [productField(k), v]));
        throw new ValidationFailedError(renamed);
      }
      throw e;
    }
  }
}
