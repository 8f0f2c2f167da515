import type { DataSource, EntityManager } from 'typeorm';

/** Whose time: one organization's data in one mode. */
export interface ClockScope {
  organizationId: string;
  mode: 'test' | 'live';
}

/**
 * The service's sense of "now". Domain code takes it as an argument instead of calling new Date().
 *
 * - `now()` is real time: live data, event and delivery timestamps, webhook signatures, keys,
 *   idempotency and everything not owned by one organization's mode.
 * - `nowFor(scope)` is the time of one organization's data in one mode: real time too, except for
 *   a test mode whose test clock was moved (CLOCK_CONTROL=true, POST /test_helpers/clock). Invoice
 *   timing (creation, expiry, the monitoring window, the sweeper), payments against those invoices
 *   and the dashboard use it.
 */
export abstract class Clock {
  abstract now(): Date;

  /**
   * `manager`: inside a transaction, its manager, so that reading a test clock's offset does not
   * borrow a second connection from the pool while the transaction holds one.
   */
  nowFor(_scope: ClockScope, _manager?: EntityManager): Promise<Date> {
    return Promise.resolve(this.now());
  }

  /** The scopes whose time runs ahead of real time, with their offsets (the sweeper visits each). */
  movedScopes(): Promise<Array<{ scope: ClockScope; offsetMs: number }>> {
    return Promise.resolve([]);
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/**
 * Installed instead of SystemClock when CLOCK_CONTROL=true (refused in production): real time plus,
 * for an organization's test mode, an offset that only moves forward. Offsets live in the database
 * (`test_clocks`, written by the test-clock module: POST /test_helpers/clock), so every instance agrees
 * and a restart keeps them; the kernel only reads them. Live mode and other organizations are never moved.
 */
export class ControlledClock extends Clock {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  now(): Date {
    return new Date();
  }

  async offsetMs(scope: ClockScope, manager?: EntityManager): Promise<number> {
    if (scope.mode !== 'test') return 0;
    const rows: Array<{ offset_ms: string }> = await (manager ?? this.dataSource).query(
      `SELECT offset_ms FROM test_clocks WHERE organization_id = $1 AND mode = 'test'`,
      [scope.organizationId],
    );
    return rows[0] ? Number(rows[0].offset_ms) : 0;
  }

  async nowFor(scope: ClockScope, manager?: EntityManager): Promise<Date> {
    const offset = await this.offsetMs(scope, manager);
    return new Date(Date.now() + offset);
  }

  async movedScopes(): Promise<Array<{ scope: ClockScope; offsetMs: number }>> {
    const rows: Array<{ organization_id: string; offset_ms: string }> = await this.dataSource.query(
      `SELECT organization_id, offset_ms FROM test_clocks WHERE mode = 'test' AND offset_ms > 0 ORDER BY organization_id`,
    );
    return rows.map((r) => ({ scope: { organizationId: r.organization_id, mode: 'test' as const }, offsetMs: Number(r.offset_ms) }));
  }
}
