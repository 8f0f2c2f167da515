import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { CatalogProvider } from '../../domain/catalog';
import type { ProviderView } from '../../dto/provider.views';

export interface ScopedProvider {
  /** The catalog entry (currency, decimals, type...). */
  catalog: CatalogProvider;
  /** The read form for responses, with the organization's enabled flag. */
  view: ProviderView;
}

/**
 * Catalog providers as one organization has them in one mode. `ids` null = the whole catalog, in
 * catalog order; otherwise the known ids among those asked (unknown ids are left out).
 */
export class GetProvidersQuery extends Query<ScopedProvider[]> {
  constructor(
    readonly scope: Scope,
    readonly ids: readonly string[] | null = null,
  ) {
    super();
  }
}
