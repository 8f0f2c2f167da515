// The rates module's public surface: other modules and the composition root import only this file.
export { RatesModule } from './rates.module';
export { ImportRatesCommand, type ImportedRates } from './commands/import-rates/import-rates.command';
// Sent by a write recording a snapshot id (payments, refunds) in its transaction: a snapshot whose day may go soon is kept.
export { KeepRatesSnapshotCommand } from './commands/keep-rates-snapshot/keep-rates-snapshot.command';
export { RatesAsOfQuery } from './queries/rates-as-of/rates-as-of.query';
export { RatesPreflightQuery } from './queries/preflight/rates-preflight.query';
export { PricingRatesQuery } from './queries/pricing-rates/pricing-rates.query';
export { LockedRatesQuery } from './queries/locked-rates/locked-rates.query';
// Asked by the rates guard, answered by the module that owns the providers (the arrow points providers -> rates).
export { LivePaymentCurrenciesQuery } from './ports/live-payment-currencies.query';
export { parseSnapshotFile, SnapshotFileError } from './domain/rate-table';
export { RatesSnapshotGoneError, RatesUnavailableError } from './domain/rates.errors';
export { RatesRefresher } from './rates-refresher';
export { RatesConfig, loadRatesConfig } from './rates.config';
// The rate history's retention plan: modules holding a snapshot id register their column under this name.
export { RATE_HISTORY_RETENTION } from './rate-history-retention';
