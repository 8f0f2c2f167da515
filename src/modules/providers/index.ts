// The providers module's public surface: other modules and the composition root import only this file.
export { ProvidersModule } from './providers.module';
export { GetProvidersQuery, type ScopedProvider } from './queries/get-providers/get-providers.query';
export { GetProviderTermsQuery, type ProviderTerms } from './queries/get-provider-terms/get-provider-terms.query';
export {
  ListInvoiceProvidersQuery,
  type AvailableProviderView,
  type InvoiceProvidersView,
} from './queries/list-invoice-providers/list-invoice-providers.query';
export { SetProviderEnabledCommand, type ProviderSettingChanged } from './commands/set-provider-enabled/set-provider-enabled.command';
export { SetProviderConfirmationsCommand, type ProviderConfirmationsChanged } from './commands/set-provider-confirmations/set-provider-confirmations.command';
// The provider catalog ships with the service: its lookups are pure and shared.
export {
  canonicalProviderId,
  findCatalogProvider,
  isCatalogProvider,
  paymentKindOf,
  PROVIDER_CATALOG,
  PROVIDER_TYPES,
  type CatalogProvider,
  type ProviderType,
} from './domain/catalog';
export type { ProviderView } from './dto/provider.views';
// Asked by the providers list, answered by the module that owns the rails (the arrow points rails -> providers).
export { ListProviderRailsQuery, type ProviderRails } from './ports/list-provider-rails.query';
