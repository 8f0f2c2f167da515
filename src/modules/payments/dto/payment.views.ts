import { renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import type { ProviderView } from '../../providers';
import type { PaymentRecord } from '../persistence/payment.record';

/** A payment as responses show it (interface "Payment"); `provider` only when expanded. */
export interface PaymentView {
  id: string;
  /** Left out of the payer view (no key): it is the provider's internal reference. */
  idempotency_key?: string | null;
  organization_id: string;
  provider_id: string;
  invoice_id: string | null;
  currency: string;
  price: string;
  price_usd: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  created_at: string;
  updated_at: string | null;
  happened_at: string;
  provider?: ProviderView | null;
}

export function paymentView(p: PaymentRecord, payer: boolean): PaymentView {
  return {
    id: p.id,
    ...(payer ? {} : { idempotency_key: p.idempotencyKey }),
    organization_id: p.organizationId,
    provider_id: p.providerId,
    invoice_id: p.invoiceId,
    currency: p.currency,
    price: renderAmount(p.price),
    price_usd: renderAmount(p.priceUsd),
    status: p.status,
    confirmations: p.confirmations,
    required_confirmations: p.requiredConfirmations,
    created_at: formatTimestamp(p.createdAt),
    updated_at: formatTimestamp(p.updatedAt),
    happened_at: formatTimestamp(p.happenedAt),
  };
}

export interface PaymentPage {
  items: PaymentView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}
