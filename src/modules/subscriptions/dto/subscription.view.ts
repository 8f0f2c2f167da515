import { renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import type { UsageEventRow } from '../persistence/usage-events.repository';
import type { SubscriptionRecord } from '../persistence/subscription.record';

/** A subscription as responses and events show it (decisions §20, plus customer_name, metadata, starts_at, next_invoice_at, latest_invoice_id). */
export interface SubscriptionView {
  id: string;
  status: string;
  product_id: string;
  billing_schema_id: string;
  customer_email: string;
  customer_name: string | null;
  quantity: number;
  metadata: Record<string, string>;
  starts_at: string;
  current_period_start: string;
  current_period_end: string;
  next_invoice_at: string | null;
  latest_invoice_id: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

export function subscriptionView(r: SubscriptionRecord): SubscriptionView {
  return {
    id: r.id,
    status: r.status,
    product_id: r.productId,
    billing_schema_id: r.billingSchemaId,
    customer_email: r.customerEmail,
    customer_name: r.customerName,
    quantity: r.quantity,
    metadata: r.metadata ?? {},
    starts_at: formatTimestamp(r.startsAt),
    current_period_start: formatTimestamp(r.currentPeriodStart),
    current_period_end: formatTimestamp(r.currentPeriodEnd),
    next_invoice_at: formatTimestamp(r.nextInvoiceAt),
    latest_invoice_id: r.latestInvoiceId,
    cancel_at_period_end: r.cancelAtPeriodEnd,
    canceled_at: formatTimestamp(r.canceledAt),
    created_at: formatTimestamp(r.createdAt),
    updated_at: formatTimestamp(r.updatedAt),
  };
}

export interface SubscriptionPage {
  items: SubscriptionView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export interface UsageEventView {
  id: string;
  subscription_id: string;
  metric_key: string;
  value: string;
  unique_key: string | null;
  timestamp: string;
  created_at: string;
}

export function usageEventView(r: UsageEventRow): UsageEventView {
  return {
    id: r.id,
    subscription_id: r.subscriptionId,
    metric_key: r.metricKey,
    value: renderAmount(r.value),
    unique_key: r.uniqueKey,
    timestamp: formatTimestamp(r.timestamp),
    created_at: formatTimestamp(r.createdAt),
  };
}

/** One line of an upcoming invoice. */
export interface UpcomingLineView {
  type: 'BASE' | 'USAGE';
  /** What the line charges, in words: the invoice item's description once issued. */
  description: string;
  metric_key: string | null;
  /** BASE: the subscription's quantity; USAGE: the period's aggregated usage. */
  quantity: string;
  amount: string;
  period_start: string;
  period_end: string;
}

export interface UpcomingInvoiceView {
  subscription_id: string;
  period_start: string;
  period_end: string;
  /** When the scheduler issues it. */
  invoice_at: string;
  currency: string;
  lines: UpcomingLineView[];
  total: string;
}
