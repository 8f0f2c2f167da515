import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { RunningServer, startServer } from '../../support/server';
import { createInvoice } from '../payments/payments-helpers';
import { advance, databaseOf, MINUTE, waitFor } from './timing-helpers';

const ENV = { CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '1', INVOICE_MONITORING_MINUTES: '60', LOG_LEVEL: 'info' };

/** The clock moves each instance logged, as `invoice_id -> [to.status/to.substatus, ...]`. */
function movesIn(outputs: string[]): Map<string, string[]> {
  const moves = new Map<string, string[]>();
  for (const line of outputs.join('\n').split('\n')) {
    if (!line.includes('"invoice_clock_move"')) continue;
    const entry = JSON.parse(line);
    moves.set(entry.invoice_id, [...(moves.get(entry.invoice_id) ?? []), `${entry.to.status}/${entry.to.substatus}`]);
  }
  return moves;
}

async function storedStates(databaseUrl: string, ids: string[]): Promise<Map<string, string>> {
  return withClient(databaseUrl, async (c) => {
    const rows = (await c.query('SELECT id, status, substatus FROM invoices WHERE id = ANY($1)', [ids])).rows;
    return new Map(rows.map((r: any) => [r.id, `${r.status}/${r.substatus}`]));
  });
}

describe('the sweeper: time moves without requests, once, with two instances sweeping at once', () => {
  let a: IsolatedService;
  let b: RunningServer;
  let db: string;

  beforeAll(async () => {
    a = await startIsolatedService(ENV);
    db = databaseOf(a);
    b = await startServer({ databaseUrl: db, env: ENV });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('writes every expiry and window closing within seconds, each move exactly once across both instances', async () => {
    const org = await a.createOrg();
    const onB = new Api(org.testKey, b.baseUrl);
    // More invoices than one sweep batch (200), created through both instances.
    const ids: string[] = [];
    for (let i = 0; i < 260; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, k) => createInvoice((i + k) % 2 ? onB : org.test, '10', 'USD', { expires_in_minutes: 5 })),
      );
      ids.push(...batch);
    }
    // A paid invoice is left alone by the clock.
    const paid = await createInvoice(org.test, '10', 'USD', { expires_in_minutes: 5 });
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: paid, provider_id: 'prov_card_usd', price: '10', status: 'COMPLETED' }), 201);

    // The organization's test clock is stored in the database: moved through one instance, both see it.
    await advance(onB, 6 * MINUTE);
    // No reads: the stored state changes by itself.
    const expired = await waitFor(
      () => storedStates(db, ids),
      (s) => [...s.values()].every((v) => v === 'PENDING/EXPIRED'),
    );
    expect([...expired.values()].filter((v) => v !== 'PENDING/EXPIRED')).toEqual([]);

    await advance(org.test, 60 * MINUTE);
    const voided = await waitFor(
      () => storedStates(db, ids),
      (s) => [...s.values()].every((v) => v === 'VOIDED/EXPIRED'),
    );
    expect([...voided.values()].filter((v) => v !== 'VOIDED/EXPIRED')).toEqual([]);
    expect((await storedStates(db, [paid])).get(paid)).toBe('COMPLETED/null');

    // Let any straggling sweep finish, then count the moves both instances logged.
    await new Promise((r) => setTimeout(r, 2500));
    const moves = movesIn([a.server.output(), b.output()]);
    // (Usually both instances take part, one batch each; which one sweeps what is up to their timers.)
    // One expiry and one window closing per invoice (the two may come from different instances).
    for (const id of ids) expect([id, [...(moves.get(id) ?? [])].sort()]).toEqual([id, ['PENDING/EXPIRED', 'VOIDED/EXPIRED']]);
    expect(moves.has(paid)).toBe(false);

    // The events of the moves, written once each: invoice.expired, then invoice.updated twice and invoice.voided.
    const events = await withClient(
      db,
      async (c) =>
        (
          await c.query(
            `SELECT data->'object'->>'id' AS id, type, count(*)::int AS n FROM events
        WHERE type IN ('invoice.expired', 'invoice.updated', 'invoice.voided') AND data->'object'->>'id' = ANY($1)
        GROUP BY 1, 2`,
            [[...ids, paid]],
          )
        ).rows,
    );
    const count = (id: string, type: string) => events.find((e: any) => e.id === id && e.type === type)?.n ?? 0;
    for (const id of ids) {
      expect([id, count(id, 'invoice.expired'), count(id, 'invoice.updated'), count(id, 'invoice.voided')]).toEqual([id, 1, 2, 1]);
    }
    expect(count(paid, 'invoice.expired')).toBe(0);
  });

  it("sweeps a batch organization by organization (the order the organizations' rollup locks are taken in), whatever the expiry order", async () => {
    const orgs = await Promise.all([a.createOrg('Sweep A'), a.createOrg('Sweep B'), a.createOrg('Sweep C')]);
    // Created one organization after the other, round after round: by expiry the organizations alternate.
    const orgOf = new Map<string, string>();
    for (let round = 0; round < 5; round++) {
      for (const org of orgs) orgOf.set(await createInvoice(org.test, '10', 'USD', { expires_in_minutes: 5 }), org.id);
    }
    const ids = [...orgOf.keys()];
    // Only this instance sweeps (the other has stopped); each organization's test clock moves.
    await b.stop();
    for (const org of orgs) await advance(org.test, 6 * MINUTE);
    await waitFor(
      () => storedStates(db, ids),
      (s) => [...s.values()].every((v) => v === 'PENDING/EXPIRED'),
    );

    const order = a.server
      .output()
      .split('\n')
      .filter((line) => line.includes('"invoice_clock_move"'))
      .map((line) => JSON.parse(line))
      .filter((e) => orgOf.has(e.invoice_id))
      .map((e) => orgOf.get(e.invoice_id)!);
    expect(order).toHaveLength(15);
    // Each organization's moves in one run: 3 runs, not the 15 of expiry order.
    const runs = order.filter((org, i) => i === 0 || org !== order[i - 1]);
    expect(runs).toHaveLength(3);
    expect(new Set(runs).size).toBe(3);
  });
});
