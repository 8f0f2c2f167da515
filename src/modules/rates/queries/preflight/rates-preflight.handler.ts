import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';
import { Clock } from '../../../../shared/time/clock';
import { failureText } from '../../adapters/http-answer';
import { rateSourceFor } from '../../adapters/rate-sources';
import { disagreements } from '../../domain/source-agreement';
import type { SourceAnswer, SourceQuote } from '../../domain/source-answer';
import type { Currency } from '../../../../shared/money/currency';
import { RatesConfig } from '../../rates.config';
import { RatesPreflightQuery } from './rates-preflight.query';

@QueryHandler(RatesPreflightQuery)
export class RatesPreflightHandler implements IQueryHandler<RatesPreflightQuery> {
  constructor(
    @Inject(RatesConfig) private readonly config: RatesConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ production }: RatesPreflightQuery): Promise<PreflightCheck[]> {
    const settings = this.config.sources;
    if (!settings.length) {
      return [
        {
          name: 'rates.sources',
          status: production ? 'warn' : 'ok',
          detail:
            'RATE_SOURCES is none: prices come from the rates table, which only rates:import moves' +
            (production ? '; set RATE_SOURCES (the exchanges by default) for live prices' : ''),
        },
      ];
    }
    const sources = settings.map((s) => rateSourceFor(s, this.config.RATE_SOURCE_TIMEOUT_MS, () => this.clock.now()));
    const results = await Promise.all(
      sources.map(async (s) => {
        try {
          return { source: s.name, answer: await s.fetch() };
        } catch (e) {
          return { source: s.name, error: failureText(e) };
        }
      }),
    );
    const now = this.clock.now();
    const maxAgeMs = this.config.RATES_MAX_AGE_SECONDS * 1000;
    // Only rates taken within RATES_MAX_AGE_SECONDS count, as the refresher counts them: a feed that answers
    // with old prices (frozen upstream, a cache that stopped renewing) leaves every rate it alone gives aging.
    const answered = results
      .filter((r): r is { source: string; answer: SourceAnswer } => 'answer' in r)
      .map((r) => ({ source: r.source, answer: r.answer, ...freshness(r.answer, now, maxAgeMs) }));
    const fresh = answered.filter((r) => Object.keys(r.fresh).length > 0);
    const checks: PreflightCheck[] = results.map((r) => {
      const name = `rates.source.${r.source}`;
      if ('error' in r) {
        // One source down is survivable while another answers (its currencies may still age); none answering is not.
        return {
          name,
          status: fresh.length ? 'warn' : 'fail',
          detail: `${r.source} did not answer (${r.error}): live invoices need fresh rates (503 rates_unavailable otherwise); check outbound HTTPS to it, or RATE_SOURCES`,
          source: r.source,
        };
      }
      const { fresh: quoted, stale } = answered.find((a) => a.source === r.source)!;
      const count = Object.keys(quoted).length;
      const old = Object.entries(stale).map(([currency, seconds]) => `${currency} ${seconds} s`);
      const staleText = `older than RATES_MAX_AGE_SECONDS (${this.config.RATES_MAX_AGE_SECONDS} s): ${old.slice(0, 5).join(', ')}${old.length > 5 ? ', ...' : ''}`;
      if (!count) {
        return {
          name,
          status: fresh.length ? 'warn' : 'fail',
          detail: old.length
            ? `${r.source} answered only rates ${staleText}; the refresher drops them: is the feed still updated?`
            : `${r.source} answered no usable rate: check RATE_SOURCES`,
          source: r.source,
          rates: 0,
          ...(old.length ? { stale } : {}),
        };
      }
      return old.length
        ? {
            name,
            status: 'warn',
            detail: `${r.source} answered ${count} rates, and ${old.length} ${staleText}; the refresher drops those, and they age unless another source gives them`,
            source: r.source,
            rates: count,
            stale,
          }
        : { name, status: 'ok', detail: `${r.source} answered ${count} rates`, source: r.source, rates: count };
    });
    // A currency only stale answers give: its rate ages whatever the other sources say (live invoices payable in it get 503).
    const freshSomewhere = new Set(fresh.flatMap((r) => Object.keys(r.fresh)));
    const staleOnly = [...new Set(answered.flatMap((r) => Object.keys(r.stale)))].filter((c) => !freshSomewhere.has(c)).sort();
    if (fresh.length && staleOnly.length) {
      checks.push({
        name: 'rates.fresh',
        status: 'warn',
        detail: `no source gives a rate taken within RATES_MAX_AGE_SECONDS for ${staleOnly.join(', ')}: those rates age, and live invoices payable in them get 503 rates_unavailable`,
        currencies: staleOnly,
      });
    }
    if (fresh.length < 2) return checks;
    const apart = disagreements(
      answered.map((r) => ({ source: r.source, answer: r.fresh })),
      this.config.maxSpread,
    );
    if (!apart.length) {
      checks.push({
        name: 'rates.agreement',
        status: 'ok',
        detail: `the sources that answered agree within RATES_MAX_SPREAD (${this.config.RATES_MAX_SPREAD})`,
      });
      return checks;
    }
    for (const d of apart) {
      checks.push({
        name: `rates.agreement.${d.currency}`,
        status: 'warn',
        detail: `${d.currency}: ${d.low.source} says ${d.low.rate}, ${d.high.source} says ${d.high.rate} (apart by ${d.spread}, more than RATES_MAX_SPREAD ${this.config.RATES_MAX_SPREAD}): the refresher drops disagreeing answers and the rate ages; check the sources`,
        ...d,
      });
    }
    return checks;
  }
}

/** A source's usable quotes split by age at `now`: those within `maxAgeMs`, and the others' ages in seconds. */
function freshness(answer: SourceAnswer, now: Date, maxAgeMs: number): { fresh: SourceAnswer; stale: Record<string, number> } {
  const fresh: SourceAnswer = {};
  const stale: Record<string, number> = {};
  for (const [currency, q] of Object.entries(answer) as Array<[Currency, SourceQuote | undefined]>) {
    if (!q || 'problem' in q) continue;
    const age = now.getTime() - q.takenAt.getTime();
    if (age > maxAgeMs) stale[currency] = Math.floor(age / 1000);
    else fresh[currency] = q;
  }
  return { fresh, stale };
}
