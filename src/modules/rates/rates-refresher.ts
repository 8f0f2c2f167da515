import { Inject, Injectable, Logger, OnApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { QueryBus } from '@nestjs/cqrs';
import { Counter, Gauge } from 'prom-client';
import { CURRENCIES } from '../../shared/money/currency';
import { MetricsRegistry } from '../../shared/metrics/metrics-registry';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { Clock } from '../../shared/time/clock';
import { failureText, LiveRateSource } from './adapters/http-answer';
import { rateSourceFor } from './adapters/rate-sources';
import { ImportRatesHandler } from './commands/import-rates/import-rates.handler';
import { chooseRates, SourceResult } from './domain/rate-choice';
import { RatesAsOfQuery } from './queries/rates-as-of/rates-as-of.query';
import { RatesConfig } from './rates.config';

/**
 * Live rates (decisions.md §21): every RATES_REFRESH_SECONDS, asks every source in RATE_SOURCES at
 * once, takes each currency from the first source (in order) with a usable, recent answer, and
 * writes one snapshot. A currency no source answered keeps its previous rate, time and source, so it
 * ages until live pricing refuses it. Several instances may refresh at once: snapshot writers take
 * one advisory lock, and one that finds a snapshot newer than half a period writes nothing.
 */
@Injectable()
export class RatesRefresher implements OnApplicationShutdown, OnApplicationBootstrap {
  private readonly logger = new Logger('Rates');
  private readonly sources: LiveRateSource[];
  private readonly task = new PeriodicTask(
    () => this.refresh(),
    (e) => this.logger.warn({ err: e.message }, 'rates refresh failed; keeping the current rates'),
  );
  private readonly failures: Counter;

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(RatesConfig) private readonly config: RatesConfig,
    @Inject(ImportRatesHandler) private readonly importer: ImportRatesHandler,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(MetricsRegistry) metrics: MetricsRegistry,
  ) {
    this.sources = config.sources.map((s) => rateSourceFor(s, config.RATE_SOURCE_TIMEOUT_MS, () => clock.now()));
    const registers = [metrics.registry];
    this.failures = new Counter({
      name: 'exchange_rate_source_failures_total',
      help: 'Refreshes in which a rate source gave no usable answer at all (error, timeout, bad shape)',
      labelNames: ['source'],
      registers,
    });
    const ask = this.queries;
    const now = () => clock.now();
    new Gauge({
      name: 'exchange_rate_age_seconds',
      help: 'Age of each currency rate in force now, labelled with the source it came from',
      labelNames: ['currency', 'source'],
      registers,
      async collect() {
        this.reset();
        const table = await ask.execute(new RatesAsOfQuery()).catch(() => null);
        if (!table) return;
        const at = now().getTime();
        for (const currency of CURRENCIES) {
          const origin = table.origins[currency];
          if (origin) this.set({ currency, source: origin.source }, Math.max(0, (at - origin.takenAt.getTime()) / 1000));
        }
      },
    });
  }

  /** Starts with the service's background work (after the migrations; never in the CLI). */
  onApplicationBootstrap(): void {
    this.work.whenReady('rates refresher', () => this.start());
  }

  /** Starts refreshing (after migrations): at once, then every RATES_REFRESH_SECONDS; nothing without sources. */
  start(): void {
    if (!this.sources.length) return;
    void this.refresh().catch((e: Error) => this.logger.warn({ err: e.message }, 'rates refresh failed; keeping the current rates'));
    this.task.start(this.config.refreshSeconds);
  }

  /** One refresh: ask, choose, write (unless another instance just did), log. */
  async refresh(): Promise<void> {
    if (!this.sources.length) return;
    const results: SourceResult[] = await Promise.all(
      this.sources.map(async (s) => {
        try {
          return { source: s.name, answer: await s.fetch() };
        } catch (e) {
          return { source: s.name, error: failureText(e) };
        }
      }),
    );
    const now = this.clock.now();
    const maxAgeMs = this.config.RATES_MAX_AGE_SECONDS * 1000;
    const choice = chooseRates(results, now, maxAgeMs);
    for (const f of choice.failed) this.failures.inc({ source: f.source });
    const chosen = Object.keys(choice.rates).filter((c) => c !== 'USD');
    const used = [...new Set(Object.values(choice.origins).map((o) => o.source))].filter((s) => s !== 'fixed');
    let written: string | null = null;
    if (chosen.length) {
      const imported = await this.importer.write(
        { takenAt: now, source: `live:${used.join(',')}`.slice(0, 100), rates: choice.rates, origins: choice.origins },
        new Date(now.getTime() - (this.config.refreshSeconds * 1000) / 2),
      );
      written = imported?.id ?? null;
    }
    const table = await this.queries.execute(new RatesAsOfQuery());
    let oldest = { currency: 'USD', ageSeconds: 0, source: 'fixed' };
    for (const currency of CURRENCIES) {
      const origin = table.origins[currency];
      const age = origin ? Math.floor((now.getTime() - origin.takenAt.getTime()) / 1000) : Number.POSITIVE_INFINITY;
      if (age > oldest.ageSeconds) oldest = { currency, ageSeconds: age, source: origin?.source ?? 'none' };
    }
    const fields = {
      sources_used: used,
      failed: choice.failed,
      skipped: choice.skipped.length ? choice.skipped.slice(0, 20) : undefined,
      fresh: chosen.length,
      missing: choice.missing,
      snapshot: written ?? (chosen.length ? 'written by another instance' : 'none'),
      oldest_rate: oldest,
    };
    const message = `rates refreshed from ${used.join(', ') || 'no source'}; oldest rate ${oldest.currency} ${oldest.ageSeconds} s (${oldest.source})`;
    if (choice.failed.length || choice.missing.length || oldest.ageSeconds * 1000 > maxAgeMs) this.logger.warn(fields, message);
    else this.logger.log(fields, message);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}
