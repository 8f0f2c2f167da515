import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { baseUrl } from '../../support/api';
import { createOrg } from '../../support/factories';
import { WebhookReceiver } from '../../support/webhook-receiver';

/**
 * The TypeScript client package (clients/typescript): compiled with its own tsconfig, then its
 * build is called against the running service, as a merchant's code would call it. The README's
 * examples are taken from the README and run as written.
 */
const ROOT = resolve(__dirname, '..', '..', '..');
const PACKAGE = join(ROOT, 'clients/typescript');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const ZEROS = '0'.repeat(30);

type ClientModule = typeof import('../../../clients/typescript/src/index');
let client: ClientModule;

beforeAll(() => {
  execFileSync(process.execPath, [TSC, '-p', join(PACKAGE, 'tsconfig.json')], { cwd: PACKAGE, stdio: 'pipe', timeout: 120_000 });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package's own build, loaded once it is compiled
  client = require(join(PACKAGE, 'dist/index.js')) as ClientModule;
}, 150_000);

describe('TypeScript client (clients/typescript)', () => {
  it('creates an invoice, reads it and lists its payments, typed end to end', async () => {
    const org = await createOrg();
    const api = client.createClient({ baseUrl: `${baseUrl()}/`, apiKey: org.testKey });

    const created = await api.POST('/invoices/create', { body: { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '40' }] } });
    expect(created.response.status).toBe(201);
    if (created.error) throw new Error(created.error.error);
    // The envelope's data is required in a 2xx answer: no non-null assertion needed.
    const id: string = created.data.data.id;
    expect(id).toMatch(/^invoice_/);

    const invoice = await client.unwrap(api.POST('/invoices/{id}', { params: { path: { id } }, body: { expand: ['items'] } }));
    expect(invoice).toMatchObject({ id, status: 'PENDING', substatus: null, currency: 'USD', price: `40.${ZEROS}` });
    expect(invoice.items?.[0]).toMatchObject({ type: 'PAYMENT_INTENT', currency: 'USD' });
    const state = await client.unwrap(api.GET('/invoices/{id}/short_state', { params: { path: { id } } }));
    expect(state).toMatchObject({ id, status: 'PENDING' });

    const paid = await client.unwrap(
      api.POST('/test_helpers/payments', { body: { invoice_id: id, provider_id: 'prov_tron_usdt', price: '10', idempotency_key: 'client-1' } }),
    );
    const payments = await client.unwrap(api.POST('/payments', { body: { invoice_id: id, expand: ['provider'] } }));
    expect(payments.total).toBe(1);
    expect(payments.items[0]).toMatchObject({ id: paid.id, invoice_id: id, idempotency_key: 'client-1', status: 'PENDING' });
    const none = await client.unwrap(api.POST('/payments', { body: { invoice_id: id, offset: 1 } }));
    expect(none).toMatchObject({ total: 1, items: [], offset: 1 });
  });

  it('answers bad input, a missing key and another organization with the typed error envelope', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const api = client.createClient({ baseUrl: baseUrl(), apiKey: org.testKey });

    const bad = await api.POST('/invoices/create', { body: { items: [] } });
    expect(bad.response.status).toBe(400);
    expect(bad.data).toBeUndefined();
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed', data: {}, validator: { items: expect.any(String) } });
    expect(bad.error?.support_id).toMatch(/^[0-9a-f-]{36}$/);

    const thrown = await client
      .unwrap(api.POST('/invoices/create', { body: { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '-1' }] } }))
      .catch((e) => e);
    expect(thrown).toBeInstanceOf(client.ApiError);
    expect(thrown).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(Object.keys(thrown.validator)).toEqual(['items.0.price']);

    const keyless = client.createClient({ baseUrl: baseUrl() });
    const unauthorized = await keyless.POST('/payments', { body: {} });
    expect(unauthorized.response.status).toBe(401);
    expect(unauthorized.error?.code).toBe('missing_api_key');

    const foreignId: string = (await other.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] })).body.data.id;
    const notFound = await client.unwrap(api.POST('/invoices/{id}', { params: { path: { id: foreignId } } })).catch((e) => e);
    expect(notFound).toMatchObject({ status: 404, code: 'invoice_not_found' });
  });

  it('verifies a delivery signed by the service, and refuses a changed body, a wrong secret or an old timestamp', async () => {
    const org = await createOrg();
    const api = client.createClient({ baseUrl: baseUrl(), apiKey: org.testKey });
    const receiver = await WebhookReceiver.start();
    try {
      const endpoint = await client.unwrap(api.POST('/webhooks', { body: { url: receiver.url(), event_types: ['invoice.created'] } }));
      const created = await client.unwrap(api.POST('/invoices/create', { body: { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '5' }] } }));
      const [delivery] = await receiver.waitFor((all) => all.length > 0);

      const event = client.verifyWebhook(endpoint.secret, delivery.body, delivery.headers);
      expect(event).toMatchObject({ type: 'invoice.created', organization_id: org.id, mode: 'test', data: { object: { id: created.id } } });
      expect(event.id).toBe(delivery.headers['webhook-id']);
      // The same check on raw bytes and on fetch Headers.
      expect(client.verifyWebhook(endpoint.secret, Buffer.from(delivery.body), new Headers(delivery.headers as Record<string, string>)).id).toBe(event.id);

      const forged = delivery.body.replace(created.id, 'invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f');
      expect(() => client.verifyWebhook(endpoint.secret, forged, delivery.headers)).toThrow(client.WebhookVerificationError);
      expect(() => client.verifyWebhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, delivery.body, delivery.headers)).toThrow(
        client.WebhookVerificationError,
      );
      const stale = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
      expect(() => client.verifyWebhook(endpoint.secret, delivery.body, stale)).toThrow(client.WebhookVerificationError);
    } finally {
      await receiver.stop();
    }
  });
});

/** The code blocks of the package README that follow a `<!-- tested: NAME -->` line, by name. */
function readmeExamples(): Record<string, string> {
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const out: Record<string, string> = {};
  for (const match of readme.matchAll(/<!-- tested: ([\w.-]+) -->\s*```ts\n([\s\S]*?)```/g)) out[match[1]] = match[2];
  return out;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('TypeScript client README', () => {
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    const examples = readmeExamples();
    expect(Object.keys(examples).sort()).toEqual(['example.ts', 'receiver.ts']);
    // A project of a merchant's: the package installed under its name, the README's code as its source.
    dir = mkdtempSync(join(tmpdir(), 'client-readme-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(PACKAGE, join(dir, 'node_modules/invoicing-payments-client'), 'dir');
    for (const [name, code] of Object.entries(examples)) writeFileSync(join(dir, name), code);
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext',
        target: 'es2022',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        outDir: 'out',
      },
      files: Object.keys(examples),
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
  }, 150_000);

  afterAll(() => {
    for (const child of children) child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  function run(file: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, [join(dir, 'out', file)], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    return { child, output: () => text, exited };
  }

  async function until(check: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out; output so far:\n${what()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  it('runs the usage example as written: create, read, list payments, typed error', async () => {
    const org = await createOrg();
    const example = run('example.js', { INVOICING_BASE_URL: baseUrl(), INVOICING_API_KEY: org.testKey });
    expect(await example.exited).toBe(0);
    const lines = example.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^invoice invoice_\\S+ PENDING 25\\.${ZEROS} USD$`)),
      'payments 0',
      'error 400 validation_failed items',
    ]);
    const id = lines[0].split(' ')[1];
    expect((await org.test.post(`/invoices/${id}`, {})).body.data).toMatchObject({ id, customer_email: 'payer@example.com' });
  });

  it('runs the webhook receiver example as written: a signed delivery verified, a forged one refused', async () => {
    const org = await createOrg();
    const api = client.createClient({ baseUrl: baseUrl(), apiKey: org.testKey });
    const port = await freePort();
    const endpoint = await client.unwrap(api.POST('/webhooks', { body: { url: `http://127.0.0.1:${port}/hooks`, event_types: ['invoice.created'] } }));
    const receiver = run('receiver.js', { PORT: String(port), WEBHOOK_SECRET: endpoint.secret });
    // Wait until it listens: an unsigned POST is refused (400) once it does.
    let listening = false;
    for (let i = 0; i < 100 && !listening; i++) {
      listening = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
        (r) => r.status === 400,
        () => false,
      );
      if (!listening) await new Promise((done) => setTimeout(done, 50));
    }
    expect(listening).toBe(true);
    expect(receiver.output()).toBe('rejected\n');

    const created = await client.unwrap(api.POST('/invoices/create', { body: { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '3' }] } }));
    await until(() => /verified invoice\.created event_\S+\n/.test(receiver.output()), receiver.output);
    const events = await client.unwrap(api.POST('/events', { body: { type: 'invoice.created' } }));
    const event = events.items.find((e) => (e.data.object as { id?: string }).id === created.id);
    expect(receiver.output()).toBe(`rejected\nverified invoice.created ${event?.id}\n`);
    // The service recorded the delivery as accepted (the receiver answered 204). The receiver prints
    // before it answers, so the attempt may be recorded a moment after the line above.
    const attempts = async () => (await client.unwrap(api.POST('/webhooks/{id}/attempts', { params: { path: { id: endpoint.id } }, body: {} }))).items;
    let recorded = await attempts();
    for (let i = 0; i < 100 && recorded.length === 0; i++) {
      await new Promise((done) => setTimeout(done, 50));
      recorded = await attempts();
    }
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ succeeded: true, response_status: 204 });
  });
});
