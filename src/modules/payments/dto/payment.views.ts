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
  /** The chain transaction that paid it, for a payment a chain rail recorded; null otherwise. */
  tx_hash: string | null;
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

/**
 * A chain rail records a payment under the key `<network>:<transaction hash>:<log index|native|output>`
 * (docs/rails.md); the hash is public on the chain, so every view shows it, the payer's included.
 */
const CHAIN_PAYMENT_KEY = /^[a-z][a-z0-9_]*:((?:0x)?[0-9a-fA-F]{64}):[0-9a-z_]+$/;

export function transactionOf(idempotencyKey: string | null): string | null {
  return idempotencyKey ? (CHAIN_PAYMENT_KEY.exec(idempotencyKey)?.[1] ?? null) : null;
}

export function paymentView(p: PaymentRecord, payer: boolean): PaymentView {
  return {
    id: p.id,
    ...(payer ? {} : { idempotency_key: p.idempotencyKey }),
    organization_id: p.organizationId,
    provider_id: p.providerId,
    invoice_id: p.invoiceId,
    tx_hash: transactionOf(p.idempotencyKey),
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
