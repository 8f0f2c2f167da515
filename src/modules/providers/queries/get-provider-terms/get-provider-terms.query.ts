import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { CatalogProvider } from '../../domain/catalog';

/** What a payment through one provider needs to know: the catalog entry and the organization's terms for it. */
export interface ProviderTerms {
  catalog: CatalogProvider;
  /** A disabled provider takes no new payments (absent setting: enabled). */
  enabled: boolean;
  /** Confirmations a payment through it needs (the organization's override, else the catalog's). */
  requiredConfirmations: number;
}

/**
 * One catalog provider's terms as an organization has them in one mode (id as prov_... or provider_...); null when the
 * id is not in the catalog. The payment path asks this once per reported payment: the organization's
 * setting for that provider comes from a per-process cache (ProviderSettingsCache: a change through
 * the CLI empties it in every process at once, a missed notification within two seconds), else one
 * primary-key read.
 */
export class GetProviderTermsQuery extends Query<ProviderTerms | null> {
  constructor(
    readonly scope: Scope,
    readonly providerId: string,
  ) {
    super();
  }
}
