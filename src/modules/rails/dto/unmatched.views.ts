import { parseAmount, renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import { findCatalogProvider } from '../../providers';
import type { UnmatchedStatus } from '../domain/unmatched-transfer';
import type { UnattributedTransferRow } from '../persistence/unattributed-transfers.repository';

/** A transfer into a deposit address that no payment records yet (GET /rails/unmatched). */
export interface UnmatchedTransferView {
  id: string;
  /** OPEN: no payment records it; RESOLVED: a retry recorded it as `payment_id`. */
  status: UnmatchedStatus;
  /** Why the payment was refused the last time: provider_disabled, invoice_not_found, validation_failed, ...; no_known_reference: no invoice is known. */
  reason_code: string;
  reason: string;
  /** Null when no invoice is known: money that reached the wallet without a reference of a payment address (Solana). */
  invoice_id: string | null;
  provider_id: string;
  /** Network of the provider as GET /providers/{invoice_id} names it (ETHEREUM, POLYGON, BSC). */
  network: string;
  currency: string;
  /** In the provider's currency, 30 fractional digits. */
  amount: string;
  /** The deposit address that received it (checksummed; the wallet for a transfer without an invoice). */
  address: string;
  tx_hash: string;
  /** The token Transfer log's index in its block; null for the network's coin. */
  log_index: number | null;
  block_number: number;
  /** The payment's idempotency key once recorded: `<network>:<tx_hash>:<log_index|native>`. */
  idempotency_key: string;
  /** A reorganization took its block away (Solana: the node no longer knows its confirmed transaction); it cannot be retried until the chain has it again. */
  in_doubt: boolean;
  attempts: number;
  payment_id: string | null;
  /** The block's time as the chain reports it. */
  happened_at: string;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
}

export interface UnmatchedTransferPage {
  items: UnmatchedTransferView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export function unmatchedTransferView(row: UnattributedTransferRow, displayAddress: (address: string) => string): UnmatchedTransferView {
  return {
    id: row.id,
    status: row.status,
    reason_code: row.reason_code,
    reason: row.reason,
    invoice_id: row.invoice_id,
    provider_id: row.provider_id,
    network: findCatalogProvider(row.provider_id)?.network ?? row.network.toUpperCase(),
    currency: row.currency,
    amount: renderAmount(parseAmount(row.amount)),
    address: displayAddress(row.address),
    tx_hash: row.tx_hash,
    log_index: row.log_index,
    block_number: Number(row.block_number),
    idempotency_key: row.idempotency_key,
    in_doubt: row.orphaned,
    attempts: row.attempts,
    payment_id: row.payment_id,
    happened_at: formatTimestamp(row.happened_at),
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
    resolved_at: formatTimestamp(row.resolved_at),
  };
}
