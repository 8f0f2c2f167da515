import { Inject, Injectable, Logger, OnModuleDestroy, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { QueryBus } from '@nestjs/cqrs';
import { Counter, Gauge } from 'prom-client';
import { CURRENCIES, Currency } from '../../shared/money/currency';
import { MetricsRegistry } from '../../shared/metrics/metrics-registry';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { Clock } from '../../shared/time/clock';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { failureText, LiveRateSource } from './adapters/http-answer';
import { rateSourceFor } from './adapters/rate-sources';
import { ImportRatesHandler } from './commands/import-rates/import-rates.handler';
import { chooseRates, MEDIAN_PREFIX, SourceResult } from './domain/rate-choice';
import { RatesRepository } from './persistence/rates.repository';
import { RatesAsOfQuery } from './queries/rates-as-of/rates-as-of.query';
import { RatesConfig } from './rates.config';

/** How far back a lone answer is compared with the rates taken from sources (decisions.md §21: the last hour). */
const RECENT_MS = 3_600_000;

/**
 * How long a rate one of this instance's sources gave counts as one they can give again: while the newest
 * snapshot carries such a rate over (not chosen again) from within this time, this instance asks too (it
 * may reach the source the one that wrote the snapshot could not).
 */
const GAP_WATCH_MS = 24 * 3_600_000;

/** Whether a rate's source (`median:a,b` or one name) includes the source `name`. */
function usedIn(origin: string, name: string): boolean {
  return origin.startsWith(MEDIAN_PREFIX) && origin.slice(MEDIAN_PREFIX.length).split(',').includes(name);
}

/**
 * Live rates (decisions.md §21): every RATES_REFRESH_SECONDS, asks every source in RATE_SOURCES at
 * once, chooses each currency's rate among the usable, recent answers (the median of those that agree;
 * domain/rate-choice.ts), and writes one snapshot. A currency with no rate chosen keeps its previous
 * rate, time and source, so it ages until live pricing refuses it. Each answer the choice drops is
 * logged and counted per source (exchange_rate_answers_dropped_total).
 *
 * Several instances share one database, and the exchanges' public APIs their request budget: an
 * instance that finds another's snapshot taken within the last three quarters of a period asks no
 * source at all, so about one instance asks per period. Two that tick together may both ask; snapshot
 * writers take one advisory lock, the second finds a snapshot newer than half a period, writes
 * nothing and moves its schedule by half a period, so that from then on it finds the other's fresh
 * snapshot. An instance that reaches only some sources must not silence the others: while the newest
 * snapshot carries over a rate one of their sources gave within the last day (GAP_WATCH_MS) and that is more
 * than half of RATES_MAX_AGE_SECONDS old, they ask too, and one that gets a newer rate for such a currency
 * writes its snapshot even right after the other's (one that does not writes nothing and keeps its
 * schedule); from then on
 * its complete snapshots are the ones the partial instance finds, and one instance asks a period again.
 */
@Injectable()
export class RatesRefresher implements OnModuleDestroy, OnApplicationBootstrap {
  private readonly logger = new Logger('Rates');
  private readonly sources: LiveRateSource[];
  private readonly task = new PeriodicTask(
    () => this.refresh(),
    (e) => this.logger.warn({ err: e.message }, 'rates refresh failed; keeping the current rates'),
  );
  private readonly failures: Counter;
  private readonly drops: Counter;
  /** When the last snapshot this instance wrote was taken (a slow refresh must not take its own snapshot for another's). */
  private lastWritten: number | null = null;

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(RatesConfig) private readonly config: RatesConfig,
    @Inject(ImportRatesHandler) private readonly importer: ImportRatesHandler,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
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
    this.drops = new Counter({
      name: 'exchange_rate_answers_dropped_total',
      help: 'Usable answers of a rate source left out of the choice: an outlier from the median, two disagreeing answers, a lone answer jumping',
      labelNames: ['source', 'reason'],
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
    this.work.whenReady('rates-refresher', () => this.start());
  }

  /** Starts refreshing (after migrations): at once, then every RATES_REFRESH_SECONDS; nothing without sources. */
  start(): void {
    if (!this.sources.length) return;
    // The first pass through the task too: a tick while it runs is skipped, and stopping waits for it.
    void this.task.runNow().catch((e: Error) => this.logger.warn({ err: e.message }, 'rates refresh failed; keeping the current rates'));
    this.task.start(this.config.refreshSeconds);
  }

  /** One refresh: ask, choose, write, log; nothing when another instance has just refreshed. */
  async refresh(): Promise<void> {
    if (!this.sources.length) return;
    const periodMs = this.config.refreshSeconds * 1000;
    const halfPeriodMs = periodMs / 2;
    const started = this.clock.now();
    const newest = await this.repo.newestTakenAt(this.tx.manager, started);
    // Three quarters, not half: an instance ticking about half a period after the one that asks stays
    // on one side of the line (it skips), instead of both swapping roles at every jitter of their timers.
    /** The rates the newest snapshot carried over that this instance's sources may give, by currency: their time. */
    let gaps = new Map<string, number>();
    if (newest && newest.getTime() !== this.lastWritten && newest.getTime() > started.getTime() - (periodMs * 3) / 4) {
      // Unless that instance reached only some sources: what it carried over, this one may get.
      const names = this.sources.map((s) => s.name);
      const carried = await this.repo.carriedOverByNewest(this.tx.manager, started, new Date(started.getTime() - GAP_WATCH_MS));
      // Only a rate halfway to too old: a source whose own time lags (or did not move since the last ask) is no gap yet.
      const agedBefore = started.getTime() - (this.config.RATES_MAX_AGE_SECONDS * 1000) / 2;
      gaps = new Map(
        carried
          .filter((r) => new Date(r.taken_at).getTime() < agedBefore && names.some((name) => r.source === name || usedIn(r.source, name)))
          .map((r) => [r.currency, new Date(r.taken_at).getTime()]),
      );
      if (!gaps.size) {
        this.logger.debug({ snapshot_taken_at: newest.toISOString() }, 'another instance refreshed the rates; sources not asked');
        return;
      }
      this.logger.debug(
        { snapshot_taken_at: newest.toISOString(), carried_over: [...gaps.keys()] },
        "another instance's snapshot carried rates over; asking too",
      );
    }
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
    const recent = await this.repo.sourceRatesSince(
      this.tx.manager,
      new Date(now.getTime() - RECENT_MS),
      this.sources.map((s) => s.name),
    );
    const choice = chooseRates(results, now, { maxAgeMs, maxSpread: this.config.maxSpread, maxJump: this.config.maxJump, recent });
    for (const f of choice.failed) this.failures.inc({ source: f.source });
    for (const d of choice.dropped) {
      this.drops.inc({ source: d.source, reason: d.reason });
      this.logger.warn({ ...d }, `rate answer dropped: ${d.currency} ${d.rate} from ${d.source} (${d.reason}, compared with ${d.against})`);
    }
    const chosen = Object.keys(choice.rates).filter((c) => c !== 'USD');
    const used = this.sources.map((s) => s.name).filter((name) => Object.values(choice.origins).some((o) => o.source === name || usedIn(o.source, name)));
    let written: string | null = null;
    // Asked only for another's gaps and got none of them newer: nothing to write, and no reason to move this
    // instance's schedule (which would put it in step with the other).
    const fills = chosen.some((currency) => (gaps.get(currency) ?? Infinity) < (choice.origins[currency as Currency]?.takenAt.getTime() ?? 0));
    if (chosen.length && gaps.size && !fills) {
      this.logger.debug({ carried_over: [...gaps.keys()] }, "asked for another instance's gaps; none came newer, nothing written");
    } else if (chosen.length) {
      // A snapshot with a newer rate for one of another's gaps is written even just after it; otherwise not
      // (one writer a period).
      const imported = await this.importer.write(
        { takenAt: now, source: `live:${used.join(',')}`.slice(0, 100), rates: choice.rates, origins: choice.origins },
        fills ? undefined : new Date(now.getTime() - halfPeriodMs),
      );
      written = imported?.id ?? null;
      if (written) this.lastWritten = now.getTime();
      else {
        // Asked the sources in step with another instance: tick half a period away from it from now on.
        this.task.shift(this.config.refreshSeconds / 2);
        this.logger.debug('another instance refreshed the rates meanwhile; this one now refreshes half a period later');
      }
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
      dropped: choice.dropped.length ? choice.dropped.slice(0, 20) : undefined,
      fresh: chosen.length,
      missing: choice.missing,
      snapshot: written ?? (chosen.length ? 'written by another instance' : 'none'),
      oldest_rate: oldest,
    };
    const message = `rates refreshed from ${used.join(', ') || 'no source'}; oldest rate ${oldest.currency} ${oldest.ageSeconds} s (${oldest.source})`;
    if (choice.failed.length || choice.missing.length || choice.dropped.length || oldest.ageSeconds * 1000 > maxAgeMs) this.logger.warn(fields, message);
    else this.logger.log(fields, message);
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }
}
