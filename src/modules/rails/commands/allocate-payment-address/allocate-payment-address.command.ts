import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export interface PaymentAddressView {
  provider_id: string;
  /** Network of the provider as GET /providers/{invoice_id} names it (ETHEREUM, POLYGON, BSC). */
  network: string;
  currency: string;
  /** EIP-55 checksummed deposit address; the same for the same invoice and provider. */
  address: string;
  /** Still due through this provider at the invoice's locked rates, rounded up to `decimals` (30-digit decimal string). */
  amount: string;
  decimals: number;
  chain_id: number;
  /** Token contract (checksummed), or null for the network's coin. */
  contract_address: string | null;
  /** EIP-681 payment request for wallet apps (QR code). */
  uri: string;
  /** When the invoice's rates stop holding (null: the invoice does not expire). */
  expires_at: string | null;
}

/**
 * Hands out the deposit address of an invoice and provider on an EVM rail: the next unused index
 * of the organization's active receiving wallet, taken under the wallet row's lock (never given to
 * two invoices, also across crashes and concurrent calls); the same invoice and provider always
 * get the same address. `access` null = a payer without a key (the invoice id is the capability).
 * Errors: NotFoundError (invoice), ValidationFailedError with codes unknown_provider,
 * provider_disabled, unsupported_provider, rail_not_configured, invoice_final, no_receiving_wallet.
 */
export class AllocatePaymentAddressCommand extends Command<PaymentAddressView> {
  constructor(readonly access: Scope | null, readonly invoiceId: string, readonly providerId: string) {
    super();
  }
}
