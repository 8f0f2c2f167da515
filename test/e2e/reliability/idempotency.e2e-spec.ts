import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
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
    expectError(await org.test.post('/products', productBody({ name: 'Other' }), { headers: { 'idempotency-key': k } }), 400, { code: 'idempotency_key_reused', field: 'Idempotency-Key' });
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
