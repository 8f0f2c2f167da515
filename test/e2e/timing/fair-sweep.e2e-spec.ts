import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { createInvoice } from '../payments/payments-helpers';
import { databaseOf, waitFor } from './timing-helpers';

/** The invoice ids of the clock moves the service logged, in the order it applied them. */
function movesIn(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"invoice_clock_move"'))
    .map((line) => JSON.parse(line).invoice_id as string);
}

/**
 * Fair expiry (decisions §22): the sweeper takes its batches round-robin across organizations, at
 * most WORKER_ORG_BATCH invoices of one organization's mode per batch. Two organizations have more
 * invoices due than one sweep batch (200), all due before a third organization's one: the third
 * organization's invoice is expired in the first batch, not after the flood.
 */
describe('the sweeper takes organizations in turns', () => {
  let service: IsolatedService;
  let db: string;

  beforeAll(async () => {
    service = await startIsolatedService({ INVOICE_SWEEP_SECONDS: '1', WORKER_ORG_BATCH: '2', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'info' });
    db = databaseOf(service);
  });
  afterAll(async () => service?.stop());

  it("expires a third organization's invoice in the first batch while two organizations have 220 due", async () => {
    const flooders = [await service.createOrg('Flood A'), await service.createOrg('Flood B')];
    const quiet = await service.createOrg('Quiet C');
    const flood: string[] = [];
    for (let i = 0; i < 110; i += 10) {
      for (const org of flooders)
        flood.push(...(await Promise.all(Array.from({ length: 10 }, () => createInvoice(org.test, '10', 'USD', { expires_in_minutes: 5 })))));
    }
    const mine = await createInvoice(quiet.test, '10', 'USD', { expires_in_minutes: 5 });

    // All due at once (one statement): the flood expired ten minutes ago, one second apart; the quiet
    // organization's invoice a minute ago, after every one of them.
    await withClient(db, (c) =>
      c.query(
        `UPDATE invoices SET expires_at = CASE WHEN id = $2 THEN now() - interval '1 minute'
                                               ELSE now() - interval '10 minutes' + array_position($1::text[], id) * interval '1 second' END
          WHERE id = ANY($1::text[]) OR id = $2`,
        [flood, mine],
      ),
    );
    const all = [...flood, mine];
    const moved = await waitFor(
      async () => movesIn(service.server.output()).filter((id) => all.includes(id)),
      (ids) => ids.length === all.length,
      60_000,
    );
    expect(new Set(moved).size).toBe(all.length);
    // Oldest first, the flood's 200 oldest would fill the first batch; in turns, the first batch
    // holds two invoices of each flooding organization and the quiet one.
    expect(moved.indexOf(mine)).toBeLessThan(5);
    expect(moved.indexOf(mine)).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
