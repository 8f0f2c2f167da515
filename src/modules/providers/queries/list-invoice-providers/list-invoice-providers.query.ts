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
  /** What to send through this provider to cover the invoice's price_usd at current rates, rounded up to `decimals`. */
  price: string;
}

export interface InvoiceProvidersView {
  providers: AvailableProviderView[];
  exchange_rate_timestamp: string;
}

/**
 * The enabled providers of the invoice's organization and mode that can pay it (all enabled ones;
 * each with the invoice's amount in its currency). `access` null = a payer without a key (the
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
