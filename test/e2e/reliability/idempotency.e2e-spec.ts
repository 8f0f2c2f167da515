import { testDatabaseUrl } from '../../support/api';
import { withClient } from '../../support/pg';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { takeOverWhileRunning } from './idempotency-takeover';
import { download, PDF, uploadForm } from '../files/files-helpers';
import { productBody } from '../products/product-bodies';

const key = () => `key-${Date.now()}-${Math.random().toString(36).slice(2)}`;

describe('Idempotency-Key on creating requests', () => {
  it('replays the first response to a retry, marked Idempotent-Replayed', async () => {
    const org = await createOrg();
    const k = key();
    const first = await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } });
    const id = expectSuccess(first).id;
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } });
    expect(expectSuccess(again).id).toBe(id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(1);
  });

  it('refuses the same key with a different body (400), and keeps keys per organization and mode', async () => {
    const org = await createOrg();
    const k = key();
    expectSuccess(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }));
    expectError(await org.test.post('/products', productBody({ name: 'Other' }), { headers: { 'idempotency-key': k } }), 400, {
      code: 'idempotency_key_reused',
      field: 'Idempotency-Key',
    });
    expectSuccess(await org.live.post('/products', productBody({ name: 'Other' }), { headers: { 'idempotency-key': k } }));
    const stranger = await createOrg();
    expectSuccess(await stranger.test.post('/products', productBody({ name: 'Other' }), { headers: { 'idempotency-key': k } }));
  });

  it('does not store a failed request, so it can be retried with the same key', async () => {
    const org = await createOrg();
    const k = key();
    expectError(await org.test.post('/products', productBody({ name: '' }), { headers: { 'idempotency-key': k } }), 400, { field: 'name' });
    expectSuccess(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }));
  });

  it('refuses a malformed key', async () => {
    const org = await createOrg();
    expectError(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': 'x'.repeat(256) } }), 400, { field: 'Idempotency-Key' });
  });

  it('creates once under 20 concurrent requests with one key; the others replay or are told it is in flight', async () => {
    const org = await createOrg();
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, () => org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } })));
    const ok = results.filter((r) => r.status === 200);
    const inFlight = results.filter((r) => r.status === 409);
    expect(ok.length + inFlight.length).toBe(20);
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of inFlight) expectError(r, 409, { code: 'idempotency_conflict' });
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(1);
  });
});

describe('Idempotency-Key on uploads', () => {
  const upload = (org: Awaited<ReturnType<typeof createOrg>>, content: string, k: string) => {
    const form = new FormData();
    form.append('name', 'receipt.txt');
    form.append('file', new Blob([content], { type: 'text/plain' }), 'receipt.txt');
    return org.test.request('POST', '/files/upload', { rawBody: form, headers: { 'idempotency-key': k } });
  };

  it('stores one file for a retried upload and refuses the key for different content', async () => {
    const org = await createOrg();
    const k = key();
    const first = expectSuccess(await upload(org, 'hello', k));
    const again = await upload(org, 'hello', k);
    expect(expectSuccess(again).id).toBe(first.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await upload(org, 'something else', k), 400, { code: 'idempotency_key_reused' });
    expect(expectSuccess(await org.test.get('/files')).total).toBe(1);
  });
});

describe('Idempotency-Key on simulated payments', () => {
  const invoice = async (org: Awaited<ReturnType<typeof createOrg>>) =>
    expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }] }), 201).id as string;

  it('replays a retried report with the same header, without recording twice', async () => {
    const org = await createOrg();
    const invoiceId = await invoice(org);
    const k = key();
    const body = { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '40', status: 'COMPLETED' };
    const first = await org.test.post('/test_helpers/payments', body, { headers: { 'idempotency-key': k } });
    const made = expectSuccess(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await org.test.post('/test_helpers/payments', body, { headers: { 'idempotency-key': k } });
    expect(expectSuccess(again, 201)).toEqual(made);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await org.test.post('/test_helpers/payments', { ...body, price: '41' }, { headers: { 'idempotency-key': k } }), 400, {
      code: 'idempotency_key_reused',
      field: 'Idempotency-Key',
    });
    // Without the header the same body is a second payment: the header alone made the retry safe.
    expectSuccess(await org.test.post('/test_helpers/payments', body), 201);
    expect(expectSuccess(await org.test.post('/payments', { invoice_id: invoiceId })).items).toHaveLength(2);
  });

  it('keeps the idempotency_key field working beside the header: the provider reference still dedupes across headers', async () => {
    const org = await createOrg();
    const invoiceId = await invoice(org);
    const body = { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '40', idempotency_key: 'card-ref-1' };
    const first = expectSuccess(await org.test.post('/test_helpers/payments', body, { headers: { 'idempotency-key': key() } }), 201);
    expect(first.created).toBe(true);
    const second = await org.test.post('/test_helpers/payments', body, { headers: { 'idempotency-key': key() } });
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const reported = expectSuccess(second, 201);
    expect(reported.id).toBe(first.id);
    expect(reported.created).toBe(false);
    expect(expectSuccess(await org.test.post('/payments', { invoice_id: invoiceId })).items).toHaveLength(1);
  });

  it('records one payment under 10 concurrent requests with one header key', async () => {
    const org = await createOrg();
    const invoiceId = await invoice(org);
    const k = key();
    const body = { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10' };
    const results = await Promise.all(Array.from({ length: 10 }, () => org.test.post('/test_helpers/payments', body, { headers: { 'idempotency-key': k } })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length + results.filter((r) => r.status === 409).length).toBe(10);
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    expect(expectSuccess(await org.test.post('/payments', { invoice_id: invoiceId })).items).toHaveLength(1);
  });
});

describe('Idempotency-Key after a crash', () => {
  // A process that died mid-request leaves its claim behind; these rows are what it leaves.
  const leaveClaim = (orgId: string, k: string, state: 'in_flight' | 'applied', fingerprintOf: string) =>
    withClient(testDatabaseUrl(), (db) =>
      db.query(
        `UPDATE idempotency_keys SET state = $3, response_status = NULL, response_body = NULL, created_at = now() - interval '10 minutes'
        WHERE organization_id = $1 AND mode = 'test' AND key = $2 AND fingerprint = $4`,
        [orgId, k, state, fingerprintOf],
      ),
    );

  it('marks the key applied in the same commit as the changes, so a retry after a crash does not create twice', async () => {
    const org = await createOrg();
    const k = key();
    const first = expectSuccess(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }));
    const stored = await withClient(testDatabaseUrl(), (db) =>
      db.query(`SELECT state, fingerprint FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [org.id, k]),
    );
    expect(stored.rows[0].state).toBe('done');
    // the process committed the product, then died before storing its answer
    await leaveClaim(org.id, k, 'applied', stored.rows[0].fingerprint);
    expectError(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }), 409, { code: 'idempotency_answer_lost' });
    expect(expectSuccess(await org.test.get('/products')).map((p: any) => p.id)).toEqual([first.id]);
  });

  /** Makes storing the answer of the request with Idempotency-Key `k` fail once (after its changes committed), as a lost connection would; answers how to undo it. */
  async function failAnswerOnce(k: string): Promise<() => Promise<void>> {
    const fn = `fail_answer_${Date.now()}`;
    await withClient(testDatabaseUrl(), async (db) => {
      await db.query(`CREATE SEQUENCE ${fn}_seq`);
      await db.query(
        `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.key = '${k}' AND NEW.state = 'done' AND nextval('${fn}_seq') = 1 THEN RAISE EXCEPTION 'answer not stored'; END IF;
           RETURN NEW;
         END $$`,
      );
      await db.query(`CREATE TRIGGER ${fn} BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    });
    return () =>
      withClient(testDatabaseUrl(), async (db) => {
        await db.query(`DROP TRIGGER ${fn} ON idempotency_keys`);
        await db.query(`DROP FUNCTION ${fn}()`);
        await db.query(`DROP SEQUENCE ${fn}_seq`);
      });
  }

  it('keeps the bytes of an upload whose file was recorded before the request failed', async () => {
    const org = await createOrg();
    const k = key();
    const undo = await failAnswerOnce(k);
    try {
      const failed = await org.test.request('POST', '/files/upload', {
        rawBody: uploadForm(PDF, { filename: 'kept.pdf', contentType: 'application/pdf' }),
        headers: { 'idempotency-key': k },
      });
      expectError(failed, 500, { code: 'internal_error' });
      // The file was recorded (the request failed after that): its content is there to download.
      const [file] = expectSuccess(await org.test.get('/files')).items as Array<{ id: string; url: string }>;
      const got = await download(file.url, org.testKey);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(PDF)).toBe(true);
    } finally {
      await undo();
    }
  });

  it('keeps the key of a request that failed after its changes committed: a retry is told so and never creates twice', async () => {
    const org = await createOrg();
    const k = key();
    // The product commits (its key marked applied); storing the answer then fails once, as a lost
    // connection or a full disk would make it.
    const undo = await failAnswerOnce(k);
    try {
      expectError(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }), 500, { code: 'internal_error' });
      const [created] = expectSuccess<Array<{ id: string }>>(await org.test.get('/products'));
      const retried = await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } });
      expectError(retried, 409, { code: 'idempotency_answer_lost' });
      expect(retried.body.error).toContain('500 internal_error');
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(expectSuccess<Array<{ id: string }>>(await org.test.get('/products')).map((p) => p.id)).toEqual([created.id]);
    } finally {
      await undo();
    }
  });

  it('lets a retry take over a claim whose request never committed, once the claim is stale', async () => {
    const org = await createOrg();
    const k = key();
    expectSuccess(await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } }));
    const stored = await withClient(testDatabaseUrl(), (db) =>
      db.query(`SELECT fingerprint FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [org.id, k]),
    );
    await leaveClaim(org.id, k, 'in_flight', stored.rows[0].fingerprint);
    const retried = await org.test.post('/products', productBody(), { headers: { 'idempotency-key': k } });
    expectSuccess(retried);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key on a request still running when a retry takes it over', () => {
  it('lets only one of the two commit: the slow one is refused with 409 and one refund is made', async () => {
    const org = await createOrg();
    await takeOverWhileRunning(org.test, org.id, testDatabaseUrl());
  });
});

describe('Idempotency-Key on webhook endpoints', () => {
  it('registers one endpoint for a retried request and returns the same secret', async () => {
    const org = await createOrg();
    const k = key();
    const body = { url: 'https://hooks.example.com/in', event_types: '*' };
    const first = await org.test.post('/webhooks', body, { headers: { 'idempotency-key': k } });
    const created = expectSuccess(first, 201);
    const again = await org.test.post('/webhooks', body, { headers: { 'idempotency-key': k } });
    expect(expectSuccess(again, 201)).toEqual(created);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = expectSuccess(await org.test.get('/webhooks'));
    expect(Array.isArray(list) ? list.length : list.total).toBe(1);
  });
});
