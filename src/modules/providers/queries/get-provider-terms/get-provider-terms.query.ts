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
 * id is not in the catalog. One primary-key read of the organization's setting for that provider: the
 * payment path asks this once per reported payment, where GetProvidersQuery would also read the
 * organization for the read form's dates.
 */
export class GetProviderTermsQuery extends Query<ProviderTerms | null> {
  constructor(
    readonly scope: Scope,
    readonly providerId: string,
  ) {
    super();
  }
}
