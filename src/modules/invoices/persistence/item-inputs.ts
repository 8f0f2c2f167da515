import { renderAmount } from '../../../shared/money/money';
import type { ItemInput } from '../../quotes';
import type { InvoiceItemRecord } from './invoice-item.record';

/** The stored items as pricing inputs again (for re-pricing in another currency or quoting). */
export function itemInputsOf(items: InvoiceItemRecord[]): ItemInput[] {
  return items.map((i): ItemInput =>
    i.type === 'PAYMENT_INTENT'
      ? { type: 'PAYMENT_INTENT', currency: i.currency, price: renderAmount(i.price!), payment_intent_id: i.paymentIntentId }
      : { type: 'PRODUCT', product_id: i.productId!, billing_schema_id: i.billingSchemaId!, quantity: i.quantity },
  );
}
