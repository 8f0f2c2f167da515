import { Query } from '@nestjs/cqrs';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';

/**
 * The rates' go-live checks (`cli doctor`, and once after the service listens): each source of
 * RATE_SOURCES asked once now (`rates.source.<name>`: answered, or why not), and whether those that
 * answered agree within RATES_MAX_SPREAD (`rates.agreement`). Nothing is written to the rates table.
 */
export class RatesPreflightQuery extends Query<PreflightCheck[]> {
  constructor(
    /** NODE_ENV=production: live prices with no source at all is worth a warning there. */
    readonly production: boolean,
  ) {
    super();
  }
}
