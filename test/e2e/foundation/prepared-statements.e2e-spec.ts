import { Client, ClientConfig } from 'pg';
import { dataSourceOptions } from '../../../src/shared/db/data-source';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { createInvoice, intent, readInvoice } from '../invoices/invoice-helpers';
import { takeOverWhileRunning } from '../reliability/idempotency-takeover';

/**
 * The hot statements go as prepared statements by default (the whole suite runs that way);
 * DB_PREPARED_STATEMENTS=false, for poolers that cannot keep them, sends the same statements
 * unnamed with the same answers.
 */
describe.each([
  ['off', 'false'],
  ['on', 'true'],
])('prepared statements %s', (_label, setting) => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({ DB_PREPARED_STATEMENTS: setting });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('creates, reads and lists invoices, and refuses a foreign cursor, the same way', async () => {
    const { test } = await service.createOrg();
    const ids: string[] = [];
    for (const price of ['10.5', '20.25', '30']) ids.push(await createInvoice(test, { items: [intent(price)] }));
    // the same statements again and again on the same connections
    for (let i = 0; i < 8; i++) {
      const invoice = await readInvoice(test, ids[i % 3], { expand: ['items', 'calculations'] });
      expect(invoice.id).toBe(ids[i % 3]);
      expect(invoice.calculations.length).toBeGreaterThan(0);
    }
    const page = expectSuccess<{ items: Array<{ id: string }>; total: number }>(await test.post('/invoices/list', { limit: 2, status: ['PENDING'] }));
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.id)).toEqual([ids[2], ids[1]]);
    const next = expectSuccess<{ items: Array<{ id: string }> }>(await test.post('/invoices/list', { limit: 2, status: ['PENDING'], starting_after: ids[1] }));
    expect(next.items.map((i) => i.id)).toEqual([ids[0]]);
    expectError(await test.post('/invoices/list', { limit: 2, starting_after: 'invoice_not_there' }), 400);
  });

  it('lets only one of a slow keyed request and the retry that took its claim over commit', async () => {
    const org = await service.createOrg();
    await takeOverWhileRunning(org.test, org.id, service.databaseUrl!);
  });

  it('records payments in one transaction each and completes the invoice, pipelined (on) or statement by statement (off)', async () => {
    const { test } = await service.createOrg();
    const id = await createInvoice(test, { items: [intent('100')] });
    const first = expectSuccess(
      await test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: '40', status: 'COMPLETED' }),
      201,
    );
    expect(first.invoice).toMatchObject({ status: 'PARTIALLY_PAID' });
    const second = expectSuccess(
      await test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: '60', status: 'COMPLETED' }),
      201,
    );
    expect(second.invoice).toMatchObject({ status: 'COMPLETED', previous_status: 'PARTIALLY_PAID' });
    expect(expectSuccess(await test.post('/payments', { invoice_id: id })).items).toHaveLength(2);
    const events = expectSuccess(await test.post('/events', { type: ['invoice.completed'], limit: 10 })).items;
    expect(events.filter((e: { data: { object: { id: string } } }) => e.data.object.id === id)).toHaveLength(1);
  });
});

describe('generic plans for prepared statements', () => {
  const settingWith = async (genericPlans: boolean): Promise<string> => {
    const url = process.env.TEST_DATABASE_URL || process.env.TEST_PG_SERVER_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
    const options = dataSourceOptions(url, 1, genericPlans) as { extra: ClientConfig };
    const client = new Client({ connectionString: url, ...options.extra });
    await client.connect();
    try {
      return (await client.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode as string;
    } finally {
      await client.end();
    }
  };

  it("the service's sessions plan prepared statements once when they are on, and keep PostgreSQL's default when off", async () => {
    expect(await settingWith(true)).toBe('force_generic_plan');
    expect(await settingWith(false)).toBe('auto');
  });

  it("the service's sessions never JIT-compile a plan, however high its cost (a generic list page is priced as a tenth of its matches)", async () => {
    const url = process.env.TEST_DATABASE_URL || process.env.TEST_PG_SERVER_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
    /** Whether a page of events, prepared as the service sends it, was JIT-compiled with every cost above the JIT threshold. */
    const compiles = async (extra: ClientConfig): Promise<boolean> => {
      const client = new Client({ connectionString: url, ...extra });
      await client.connect();
      try {
        await client.query('SET jit_above_cost = 0');
        await client.query(
          `PREPARE page(text, text, int, int) AS SELECT id, type, data, created_at FROM events
            WHERE organization_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        );
        const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page('org_none', 'test', 20, 0)`);
        return 'JIT' in (plan.rows[0]['QUERY PLAN'] as Array<Record<string, unknown>>)[0];
      } finally {
        await client.end();
      }
    };
    const service = (dataSourceOptions(url, 1, true) as { extra: ClientConfig }).extra;
    expect(await compiles(service)).toBe(false);
    // The check can tell: where this PostgreSQL has JIT, a plain session compiles the same page.
    const available = await withClient(url, async (c) => (await c.query('SELECT pg_jit_available() AS on')).rows[0].on as boolean);
    if (available) expect(await compiles({})).toBe(true);
  });
});
