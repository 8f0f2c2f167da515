import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProviderAssetsController } from './assets.controller';
import { ProvidersController } from './providers.controller';
import { ListInvoiceProvidersHandler } from './queries/list-invoice-providers/list-invoice-providers.handler';
import { SetProviderConfirmationsHandler } from './commands/set-provider-confirmations/set-provider-confirmations.handler';
import { SetProviderEnabledHandler } from './commands/set-provider-enabled/set-provider-enabled.handler';
import { ProviderSettingRecord } from './persistence/provider-setting.record';
import { ProviderSettingsCache } from './persistence/provider-settings-cache';
import { ProvidersRepository } from './persistence/providers.repository';
import { GetProviderTermsHandler } from './queries/get-provider-terms/get-provider-terms.handler';
import { GetProvidersHandler } from './queries/get-providers/get-providers.handler';
import { LivePaymentCurrenciesHandler } from './queries/live-payment-currencies/live-payment-currencies.handler';

/**
 * Payment providers: the catalog shipped with the service (domain/catalog.ts), each organization's
 * enabled set (provider_settings; CLI provider:disable / provider:enable), the provider images, and
 * GET /providers/{invoice_id}, and per-organization required confirmations (CLI provider:confirmations).
 * Exports on the bus: GetProvidersQuery, GetProviderTermsQuery, ListInvoiceProvidersQuery, SetProviderEnabledCommand, SetProviderConfirmationsCommand;
 * answers the rates module's LivePaymentCurrenciesQuery (the currencies the live providers list offers).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ProviderSettingRecord])],
  controllers: [ProviderAssetsController, ProvidersController],
  providers: [
    ProvidersRepository,
    ProviderSettingsCache,
    GetProvidersHandler,
    GetProviderTermsHandler,
    SetProviderEnabledHandler,
    SetProviderConfirmationsHandler,
    ListInvoiceProvidersHandler,
    LivePaymentCurrenciesHandler,
  ],
})
export class ProvidersModule {}
