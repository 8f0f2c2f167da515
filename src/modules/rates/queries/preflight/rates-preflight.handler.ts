import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';
import { Clock } from '../../../../shared/time/clock';
import { failureText } from '../../adapters/http-answer';
import { rateSourceFor } from '../../adapters/rate-sources';
import { disagreements } from '../../domain/source-agreement';
import type { SourceAnswer } from '../../domain/source-answer';
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
    const answered = results.filter((r): r is { source: string; answer: SourceAnswer } => 'answer' in r);
    const checks: PreflightCheck[] = results.map((r) => {
      const name = `rates.source.${r.source}`;
      if ('error' in r) {
        // One source down is survivable while another answers (its currencies may still age); none answering is not.
        return {
          name,
          status: answered.length ? 'warn' : 'fail',
          detail: `${r.source} did not answer (${r.error}): live invoices need fresh rates (503 rates_unavailable otherwise); check outbound HTTPS to it, or RATE_SOURCES`,
          source: r.source,
        };
      }
      const quoted = Object.values(r.answer).filter((q) => q && !('problem' in q)).length;
      return quoted
        ? { name, status: 'ok', detail: `${r.source} answered ${quoted} rates`, source: r.source, rates: quoted }
        : {
            name,
            status: answered.length > 1 ? 'warn' : 'fail',
            detail: `${r.source} answered no usable rate: check RATE_SOURCES`,
            source: r.source,
            rates: 0,
          };
    });
    if (answered.length < 2) return checks;
    const apart = disagreements(answered, this.config.maxSpread);
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
