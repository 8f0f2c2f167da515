import { formatTimestamp } from '../../../shared/time/time';
import type { CatalogProvider } from '../domain/catalog';
import type { ProviderSettingRow } from '../persistence/providers.repository';

/**
 * A provider as the organization has it (interface "Provider", as embedded in a payment), plus the
 * catalog facts a client needs: network, gateway, currency, decimals, contract_address.
 */
export interface ProviderView {
  id: string;
  organization_id: string;
  name: string;
  slug: string;
  type: string;
  enabled: boolean;
  network: string;
  gateway: string;
  currency: string;
  decimals: number;
  contract_address: string;
  /** Confirmations a payment through it needs before it counts (the organization's override or the catalog's). */
  required_confirmations: number;
  created_at: string;
  updated_at: string;
}

/** The organization's override when it has one, else the catalog's value. */
export function requiredConfirmationsOf(p: CatalogProvider, setting: Pick<ProviderSettingRow, 'requiredConfirmations'> | undefined): number {
  return setting?.requiredConfirmations ?? p.requiredConfirmations;
}

/** A provider is enabled unless the organization turned it off (no setting: enabled, as on creation). */
export function enabledOf(setting: Pick<ProviderSettingRow, 'enabled'> | undefined): boolean {
  return setting?.enabled ?? true;
}

export function providerView(p: CatalogProvider, organizationId: string, setting: ProviderSettingRow | undefined, orgCreatedAt: Date): ProviderView {
  return {
    id: p.id,
    organization_id: organizationId,
    name: p.name,
    slug: p.slug,
    type: p.type,
    enabled: enabledOf(setting),
    network: p.network,
    gateway: p.gateway,
    currency: p.currency,
    decimals: p.decimals,
    contract_address: p.contractAddress,
    required_confirmations: requiredConfirmationsOf(p, setting),
    created_at: formatTimestamp(orgCreatedAt),
    updated_at: formatTimestamp(setting?.updatedAt ?? orgCreatedAt),
  };
}
