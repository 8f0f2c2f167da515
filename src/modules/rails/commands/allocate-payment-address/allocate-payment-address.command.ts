import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export interface PaymentAddressView {
  provider_id: string;
  /** Network of the provider as GET /providers/{invoice_id} names it (ETHEREUM, POLYGON, BSC, LITECOIN...). */
  network: string;
  currency: string;
  /** Deposit address in the chain's display form (checksummed where the chain has one); the same for the same invoice and provider. */
  address: string;
  /** Still due through this provider at the invoice's locked rates, rounded up to `decimals` (30-digit decimal string). */
  amount: string;
  decimals: number;
  /** The chain's numeric id where it has one (EVM chains), else null. */
  chain_id: number | null;
  /** Token contract (checksummed), or null for the network's coin. */
  contract_address: string | null;
  /** Solana Pay: the payment's reference key (the wallet in `address` receives every payment; this tells them apart); null elsewhere. */
  reference: string | null;
  /** Payment request for wallet apps (QR code), in the chain's URI standard; null on a chain without one (Tron). */
  uri: string | null;
  /** When the invoice's rates stop holding (null: the invoice does not expire). */
  expires_at: string | null;
}

/**
 * Hands out the deposit address of an invoice and provider on a chain rail: the next unused index
 * of the organization's active receiving wallet, taken under the wallet row's lock (never given to
 * two invoices, also across crashes and concurrent calls); the same invoice and provider always
 * get the same address. `access` null = a payer without a key (the invoice id is the capability).
 * Errors: NotFoundError (invoice), ValidationFailedError with codes unknown_provider,
 * provider_disabled, unsupported_provider, rail_not_configured, invoice_final, no_receiving_wallet.
 */
export class AllocatePaymentAddressCommand extends Command<PaymentAddressView> {
  constructor(
    readonly access: Scope | null,
    readonly invoiceId: string,
    readonly providerId: string,
  ) {
    super();
  }
}
