import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

/** One provider able to pay an invoice (interface "Available invoice provider", plus name, currency and price). */
export interface AvailableProviderView {
  id: string;
  /** CRYPTO or FIAT. */
  provider: 'CRYPTO' | 'FIAT';
  network: string;
  gateway: string;
  /** native (the network's coin), token (a contract on the network) or card. */
  type: string;
  filters: string[];
  metadata: { decimals: number; contract_address: string; image_url: string; image_url_network: string; required_confirmations: number };
  name: string;
  currency: string;
  /**
   * What to send through this provider to cover the invoice's price_usd at the rates in force (the invoice's
   * own while its rate lock holds), rounded up to `decimals`; null where live pricing would refuse the rate.
   */
  price: string | null;
  /**
   * A rail carries it in this mode: POST /invoices/{id}/payment_address gives a deposit address for it.
   * Always true in live mode (only such providers are listed there); in test mode false for the rest,
   * which POST /invoices/{id}/test_payment pays.
   */
  has_rail: boolean;
}

export interface InvoiceProvidersView {
  providers: AvailableProviderView[];
  exchange_rate_timestamp: string;
}

/**
 * The enabled providers of the invoice's organization and mode that can pay it, each with the
 * invoice's amount in its currency: in live mode only those a rail carries and a receiving wallet
 * receives (ListProviderRailsQuery); in test mode all enabled ones. `access` null = a payer without a key (the
 * invoice id is the capability). `assetBaseUrl` prefixes the image urls (e.g. https://pay.example.com).
 */
export class ListInvoiceProvidersQuery extends Query<InvoiceProvidersView> {
  constructor(
    readonly access: Scope | null,
    readonly invoiceId: string,
    readonly assetBaseUrl: string,
  ) {
    super();
  }
}
