import { Module } from '@nestjs/common';
import { ImportRatesHandler } from './commands/import-rates/import-rates.handler';
import { RatesRepository } from './persistence/rates.repository';
import { RatesAsOfHandler } from './queries/rates-as-of/rates-as-of.handler';
import { RATE_SOURCE, RatesRefresher } from './rate-source';

@Module({
  providers: [RatesRepository, RatesAsOfHandler, ImportRatesHandler, RatesRefresher, { provide: RATE_SOURCE, useValue: null }],
})
export class RatesModule {}
