import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ClockScope } from '../../../shared/time/clock';

/**
 * The test clocks' offsets (table `test_clocks`, owned by this module). The kernel's ControlledClock
 * only reads them (every instance sees a move); this module writes them.
 */
@Injectable()
export class TestClocksRepository {
  /**
   * Moves a test mode's clock forward by `ms`; returns the new offset in milliseconds, or null (nothing
   * moved) when the offset would pass `maxMs`.
   */
  async advance(m: EntityManager, scope: ClockScope, ms: number, maxMs: number): Promise<number | null> {
    const rows: Array<{ offset_ms: string }> = await m.query(
      `INSERT INTO test_clocks (organization_id, mode, offset_ms, updated_at) VALUES ($1, 'test', $2, now())
       ON CONFLICT (organization_id, mode) DO UPDATE SET offset_ms = test_clocks.offset_ms + EXCLUDED.offset_ms, updated_at = now()
         WHERE test_clocks.offset_ms + EXCLUDED.offset_ms <= $3
       RETURNING offset_ms`,
      [scope.organizationId, ms, maxMs],
    );
    return rows.length ? Number(rows[0].offset_ms) : null;
  }
}
