import { Amount, renderAmount, ZERO } from '../../../shared/money/money';
import { checkoutUrl } from '../../../shared/http/public-url';
import { formatTimestamp } from '../../../shared/time/time';
import type { BillingSchemaView, ProductView } from '../../products';
import { paymentWindowEndsAt } from '../domain/invoice-timing';
import { maskEmail, type PayerProductView } from '../domain/payer-view';
import type { InvoiceCalculationRecord } from '../persistence/invoice-calculation.record';
import type { InvoiceItemRecord } from '../persistence/invoice-item.record';
import type { InvoiceRecord } from '../persistence/invoice.record';
import type { InvoicePayment } from '../ports/list-invoice-payments.query';

/** Read forms of invoices as responses show them (30-digit amounts, YYYY-MM-DD HH:MM:SS times). */
export interface InvoiceView {
  id: string;
  organization_id: string;
  status: string;
  substatus: string | null;
  currency: string;
  price: string;
  price_usd: string;
  /** USD value of the invoice's COMPLETED refunds (decisions §19). */
  refunded_usd: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  monitoring_until: string | null;
  redirect_url: string | null;
  /** The hosted checkout page to send the payer to (absolute under PUBLIC_BASE_URL, else a path). */
  checkout_url: string;
  customer_email: string | null;
  /** Only on a subscription's period invoice (decisions §20): the subscription and the period billed. */
  subscription_id?: string;
  period_start?: string;
  period_end?: string;
  metadata?: Record<string, string>;
  items?: InvoiceItemView[];
  calculations?: InvoiceCalculationView[];
  organization?: { name: string; image_url: string | null };
  payments?: InvoicePayment[];
  currency_details?: { code: string; kind: 'CRYPTO' | 'FIAT' };
  summary?: InvoiceSummaryView;
}

export interface InvoiceItemView {
  id: string;
  organization_id: string;
  invoice_id: string;
  type: string;
  currency: string;
  product_id: string | null;
  billing_schema_id: string | null;
  payment_intent_id: string | null;
  price: string | null;
  quantity: number;
  status: string;
  exclude_reason: string | null;
  /** Only where the service wrote one (a subscription's period invoice). */
  description?: string;
  created_at: string;
  updated_at: string | null;
  product?: ProductView | PayerProductView | null;
  billing_schema?: BillingSchemaView | null;
  payment_intent?: { id: string; currency: string; price: string } | null;
}

export interface InvoiceCalculationView {
  id: string;
  organization_id: string;
  invoice_id: string;
  invoice_item_id: string | null;
  title: string;
  calculation_type: string;
  idx: number;
  currency: string;
  initial_price: string;
  price_delta: string;
  price: string;
  details: object;
  created_at: string;
  updated_at: string | null;
}

export interface InvoiceSummaryView {
  currency: string;
  price: string;
  price_usd: string;
  exchange_rate_timestamp: string;
}

/**
 * The plain read form; a payer (no key) gets no metadata and a masked email. `r` is the invoice as
 * it stands now (withTimeApplied); `monitoringMinutes` gives monitoring_until.
 */
export function invoiceView(r: InvoiceRecord, payer: boolean, monitoringMinutes: number): InvoiceView {
  const monitoringUntil = paymentWindowEndsAt(r, monitoringMinutes);
  const view: InvoiceView = {
    id: r.id,
    organization_id: r.organizationId,
    status: r.status,
    substatus: r.substatus,
    currency: r.currency,
    price: renderAmount(r.price),
    price_usd: renderAmount(r.priceUsd),
    refunded_usd: renderAmount(r.refundedUsd ?? ZERO),
    created_at: formatTimestamp(r.createdAt),
    updated_at: formatTimestamp(r.updatedAt),
    expires_at: r.expiresAt ? formatTimestamp(r.expiresAt) : null,
    monitoring_until: monitoringUntil ? formatTimestamp(monitoringUntil) : null,
    redirect_url: r.redirectUrl,
    checkout_url: checkoutUrl(r.id),
    customer_email: payer ? maskEmail(r.customerEmail) : r.customerEmail,
  };
  if (r.subscriptionId) {
    // The payer sees the period it pays for, not the id of the merchant's subscription object.
    if (!payer) view.subscription_id = r.subscriptionId;
    if (r.periodStart) view.period_start = formatTimestamp(r.periodStart);
    if (r.periodEnd) view.period_end = formatTimestamp(r.periodEnd);
  }
  if (!payer) view.metadata = r.metadata;
  return view;
}

/**
 * The view of the same record after a status move: a move writes status, substatus and the updated
 * time, and those are the only fields of the view they change (as invoiceView renders them).
 */
export function movedView(view: InvoiceView, move: Pick<InvoiceRecord, 'status' | 'substatus' | 'updatedAt'>): InvoiceView {
  return { ...view, status: move.status, substatus: move.substatus, updated_at: formatTimestamp(move.updatedAt) };
}

export function itemView(r: InvoiceItemRecord): InvoiceItemView {
  return {
    id: r.id,
    organization_id: r.organizationId,
    invoice_id: r.invoiceId,
    type: r.type,
    currency: r.currency,
    product_id: r.productId,
    billing_schema_id: r.billingSchemaId,
    payment_intent_id: r.paymentIntentId,
    price: r.price ? renderAmount(r.price) : null,
    quantity: r.quantity,
    status: r.status,
    exclude_reason: r.excludeReason,
    ...(r.description ? { description: r.description } : {}),
    created_at: formatTimestamp(r.createdAt),
    updated_at: formatTimestamp(r.updatedAt),
  };
}

export function calculationView(r: InvoiceCalculationRecord): InvoiceCalculationView {
  return {
    id: r.id,
    organization_id: r.organizationId,
    invoice_id: r.invoiceId,
    invoice_item_id: r.invoiceItemId,
    title: r.title,
    calculation_type: r.calculationType,
    idx: r.idx,
    currency: r.currency,
    initial_price: renderAmount(r.initialPrice),
    price_delta: renderAmount(r.priceDelta),
    price: renderAmount(r.price),
    details: r.details,
    created_at: formatTimestamp(r.createdAt),
    updated_at: formatTimestamp(r.updatedAt),
  };
}

export function summaryView(currency: string, price: Amount, priceUsd: Amount, takenAt: Date): InvoiceSummaryView {
  return { currency, price: renderAmount(price), price_usd: renderAmount(priceUsd), exchange_rate_timestamp: formatTimestamp(takenAt) };
}
