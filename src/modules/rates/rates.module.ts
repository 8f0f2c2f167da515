import { Module } from '@nestjs/common';
import { ImportRatesHandler } from './commands/import-rates/import-rates.handler';
import { KeepRatesSnapshotHandler } from './commands/keep-rates-snapshot/keep-rates-snapshot.handler';
import { RatesRepository } from './persistence/rates.repository';
import { RatesPreflightHandler } from './queries/preflight/rates-preflight.handler';
import { PricingRatesHandler } from './queries/pricing-rates/pricing-rates.handler';
import { LockedRatesHandler } from './queries/locked-rates/locked-rates.handler';
import { RatesAsOfHandler } from './queries/rates-as-of/rates-as-of.handler';
import { RatesConfig, loadRatesConfig } from './rates.config';
import { RatesRefresher } from './rates-refresher';
import { RateHistoryRetention } from './rate-history-retention';

@Module({
  providers: [
    RatesRepository,
    RatesAsOfHandler,
    PricingRatesHandler,
    LockedRatesHandler,
    ImportRatesHandler,
    KeepRatesSnapshotHandler,
    RatesPreflightHandler,
    RatesRefresher,
    RateHistoryRetention,
    { provide: RatesConfig, useFactory: () => loadRatesConfig(process.env) },
  ],
})
export class RatesModule {}
