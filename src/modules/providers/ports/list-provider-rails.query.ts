import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';

/** Which providers can take money on a chain rail in one organization and mode. */
export interface ProviderRails {
  /**
   * Catalog ids (prov_...) a payer can be given a deposit address for now: the provider's network has a
   * rail configured for the mode (for a token, its contract too) and the organization has an active
   * receiving wallet for that network's chain family. Order carries no meaning.
   */
  ready: readonly string[];
}

/**
 * Asked by the providers list (GET /providers/{invoice_id}), answered by the module that owns the
 * rails (the arrow points rails -> providers, so providers never imports it). Cheap by contract: the
 * rails' configuration is read once per process, and the wallets are one indexed read, skipped when
 * no rail is configured for the mode.
 */
export class ListProviderRailsQuery extends Query<ProviderRails> {
  constructor(readonly scope: Scope) {
    super();
  }
}
