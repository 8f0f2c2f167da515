import { v7 as uuidv7 } from 'uuid';
import { Api, ApiResponse } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { kindOf, MAKERS, withRealIds } from '../../support/makers';
import { exampleBody, fetchOpenApi, OpenApiDocument, Operation, operations } from '../../support/openapi';
import { productBody, recurringSchema } from '../products/product-bodies';
import { freshAccount } from '../rails/rails-helpers';

/**
 * A 404 for an id of the caller's own organization in the other mode names that mode (decisions §1);
 * an id of another organization, in either mode, and an id nobody has get the plain 404, word for
 * word. Driven by the published document like the tenant isolation matrix: every operation with an
 * id in its path whose object a test key can make.
 */
const NO_KEY_OR_NO_TENANT = new Set([
  'GET /assets/providers/{file}',
  'GET /checkout/assets/{file}',
  'GET /checkout/{invoice_id}',
  'GET /refund_claims/assets/{file}',
  'GET /refund_claims/{token}',
  'POST /refund_claims/{token}',
  'GET /refund_claims/{token}/state',
  'POST /refund_claims/{token}/test_payout',
  'POST /admin/organizations/{id}/keys',
  'GET /admin/organizations/{id}/keys',
  // an unmatched transfer needs a transfer on a chain: its hint is tested in test/e2e/rails/unmatched-transfers.e2e-spec.ts
  'GET /rails/unmatched/{id}',
  'POST /rails/unmatched/{id}/retry',
]);

interface Case {
  name: string;
  op: Operation;
  params: { name: string; kind: string }[];
}

const prefixOf = (id: string) => id.replace(/_[^_]+$/, '');
/** An id of the same kind that names nothing. */
const unknownLike = (id: string) => `${prefixOf(id)}_${uuidv7()}`;
const pathWith = (c: Case, ids: Record<string, string>) => c.op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]));
const call = (api: Api, c: Case, ids: Record<string, string>, body: unknown) => api.request(c.op.method, pathWith(c, ids), body === undefined ? {} : { body });

function plain404(res: ApiResponse, what: string): { code: string; error: string } {
  if (res.status !== 404) throw new Error(`${what}: expected 404, got ${res.status}: ${res.text.slice(0, 400)}`);
  const body = expectError(res, 404);
  return { code: body.code as string, error: body.error as string };
}

describe('a 404 names the other mode for an id of the caller’s own organization', () => {
  let doc: OpenApiDocument;
  let all: Case[];
  let owner: TestOrg;
  let stranger: TestOrg;

  beforeAll(async () => {
    doc = await fetchOpenApi();
    all = operations(doc)
      .map((op) => ({
        name: `${op.method} ${op.path}`,
        op,
        params: (op.operation.parameters ?? [])
          .filter((p: any) => p.in === 'path')
          .map((p: any) => ({ name: p.name as string, kind: kindOf(op.path, p.name as string) })),
      }))
      .filter((c) => c.params.length > 0 && !NO_KEY_OR_NO_TENANT.has(c.name));
    owner = await createOrg();
    stranger = await createOrg();
  });

  it('test-mode ids asked with the live key: the 404 says so; other organizations and unknown ids get the plain 404', async () => {
    const checked = new Set<string>();
    for (const c of all) {
      const ids: Record<string, string> = {};
      for (const p of c.params) ids[p.name] = await MAKERS[p.kind](owner);
      const unknown = Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, unknownLike(v)]));
      const body = await withRealIds(owner, exampleBody(doc, c.op));
      const testOnly = c.op.path.startsWith('/test_helpers/');

      // the plain answer: an id of the right kind that nobody has, asked with the owner's test key
      const plain = plain404(await call(owner.test, c, unknown, body), `${c.name} with an unknown id`);
      expect(plain.error).not.toMatch(/mode/);

      // another organization's keys, both modes: exactly the plain answer
      for (const [who, api] of [
        ['the test key', stranger.test],
        ['the live key', stranger.live],
      ] as const) {
        if (testOnly && api === stranger.live) continue;
        const res = plain404(await call(api, c, ids, body), `${c.name} with another organization's ${who}`);
        expect({ op: c.name, ...res }).toEqual({ op: c.name, ...plain });
      }
      // the same unknown id with the live key: plain too
      if (!testOnly) expect({ op: c.name, ...plain404(await call(owner.live, c, unknown, body), `${c.name} live, unknown`) }).toEqual({ op: c.name, ...plain });

      // the owner's live key: same code, the text names the mode
      if (!testOnly) {
        const res = plain404(await call(owner.live, c, ids, body), `${c.name} with the owner's live key`);
        expect({ op: c.name, ...res }).toEqual({ op: c.name, code: plain.code, error: `${plain.error}: it exists in test mode; this key is a live key.` });
        checked.add(c.params.map((p) => p.kind).join('+'));
      }
    }
    // every family with a path id is among them
    expect([...checked].sort()).toEqual(
      expect.arrayContaining(['event', 'file', 'invoice', 'payment', 'product', 'refund', 'subscription', 'wallet', 'webhook']),
    );
  });

  it('live-mode ids asked with the test key: the 404 names live mode; another organization gets the plain 404', async () => {
    const live = { test: owner.live };
    const product = expectSuccess(await owner.live.post('/products', productBody({ schemas: [recurringSchema()] }))).id as string;
    const schema = expectSuccess(await owner.live.get(`/products/${product}`)).schemas[0].id as string;
    const subscription = expectSuccess(
      await owner.live.post('/subscriptions', { product_id: product, billing_schema_id: schema, customer_email: 'modes@example.com' }),
      201,
    ).id as string;
    const invoice = await MAKERS.invoice(live);
    const file = await MAKERS.file(live);
    const webhook = await MAKERS.webhook(live);
    const event = await MAKERS.event(live);
    const wallet = expectSuccess(await owner.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201).id as string;
    const reads: [string, string, string][] = [
      ['GET', `/invoices/${invoice}`, 'Invoice not found'],
      ['POST', `/invoices/${invoice}`, 'Invoice not found'],
      ['GET', `/invoices/${invoice}/short_state`, 'Invoice not found'],
      ['GET', `/providers/${invoice}`, 'Invoice not found'],
      ['GET', `/products/${product}`, 'Product not found'],
      ['GET', `/subscriptions/${subscription}`, 'Subscription not found'],
      ['GET', `/files/${file}/content`, 'File not found'],
      ['GET', `/webhooks/${webhook}`, 'Webhook endpoint not found'],
      ['POST', `/events/${event}`, 'Event not found'],
      ['GET', `/wallets/${wallet}`, 'Wallet not found'],
    ];
    for (const [method, path, text] of reads) {
      const hinted = plain404(await owner.test.request(method, path), `${method} ${path} with the test key`);
      expect({ path, error: hinted.error }).toEqual({ path, error: `${text}: it exists in live mode; this key is a test key.` });
      for (const api of [stranger.test, stranger.live]) {
        const res = plain404(await api.request(method, path), `${method} ${path} by another organization`);
        expect({ path, ...res }).toEqual({ path, code: hinted.code, error: text });
      }
    }
  });
});
