import { Api } from '../../support/api';
import { expectError } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { kindOf, MAKERS, withRealIds } from '../../support/makers';
import { exampleBody, fetchOpenApi, OpenApiDocument, Operation, operations } from '../../support/openapi';

/**
 * Every operation of the published document that takes an id in its path is called, for a real
 * object of organization A (test mode), with organization B's keys and with A's live key: each must
 * answer 404 with no data. The kind of object a path parameter names comes from the path itself
 * (`{invoice_id}` -> invoice; `/products/{id}` -> product), so a new endpoint is covered as soon as
 * it is published, and one whose kind has no maker (test/support/makers.ts) fails this test until it gets one.
 *
 * Path parameters that name no tenant's object, with the reason. */
const NOT_TENANT_SCOPED: Record<string, string> = {
  'GET /assets/providers/{file}': 'public static content (provider images), the same for everyone',
  'GET /checkout/assets/{file}': "public static content (the checkout page's script and stylesheet), the same for everyone",
  'GET /checkout/{invoice_id}': "the payer's page reads no key: the invoice id is the capability (test/e2e/checkout covers unknown ids)",
  'GET /refund_claims/assets/{file}': "public static content (the refund claim page's script and stylesheet), the same for everyone",
  'GET /refund_claims/{token}': "the payer's claim page reads no key: the claim token is the capability (test/e2e/refunds covers unknown tokens)",
  'POST /refund_claims/{token}': 'the payer names the destination without a key: the claim token is the capability (test/e2e/refunds covers unknown tokens)',
  'GET /refund_claims/{token}/state': "the claim page's poll reads no key: the claim token is the capability (test/e2e/refunds covers unknown tokens)",
  'POST /refund_claims/{token}/test_payout':
    "the claim page's test control reads no key: the claim token is the capability, test-mode refunds only (test/e2e/refunds covers unknown tokens)",
  'POST /admin/organizations/{id}/keys': 'operator API: the admin token spans every organization by design',
  'GET /admin/organizations/{id}/keys': 'operator API: the admin token spans every organization by design',
};

/** Tenant-scoped operations whose objects only a real chain can make: their 404 for other organizations is tested beside them. */
const ISOLATED_ELSEWHERE: Record<string, string> = {
  'GET /rails/unmatched/{id}': 'test/e2e/rails/unmatched-transfers.e2e-spec.ts (an unmatched transfer needs a transfer on the local chain)',
  'POST /rails/unmatched/{id}/retry': 'test/e2e/rails/unmatched-transfers.e2e-spec.ts (an unmatched transfer needs a transfer on the local chain)',
};

interface Case {
  name: string;
  op: Operation;
  params: { name: string; kind: string }[];
}

function cases(doc: OpenApiDocument): Case[] {
  return operations(doc)
    .map((op) => {
      const params = (op.operation.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => ({ name: p.name as string, kind: kindOf(op.path, p.name) }));
      return { name: `${op.method} ${op.path}`, op, params };
    })
    .filter((c) => c.params.length > 0);
}

const pathWith = (c: Case, ids: Record<string, string>) => c.op.path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(ids[name]));

async function call(api: Api, c: Case, ids: Record<string, string>, body: unknown) {
  return api.request(c.op.method, pathWith(c, ids), body === undefined ? {} : { body });
}

describe('tenant isolation matrix (from /openapi.json)', () => {
  let doc: OpenApiDocument;
  let all: Case[];

  beforeAll(async () => {
    doc = await fetchOpenApi();
    all = cases(doc);
  });

  it('covers every operation with a path id: each is isolated below or listed with a reason', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    const uncovered = all
      .filter((c) => !NOT_TENANT_SCOPED[c.name] && !ISOLATED_ELSEWHERE[c.name])
      .filter((c) => c.params.some((p) => !MAKERS[p.kind]))
      .map(
        (c) =>
          `${c.name} (${c.params
            .filter((p) => !MAKERS[p.kind])
            .map((p) => `{${p.name}} -> ${p.kind}`)
            .join(', ')})`,
      );
    expect(uncovered).toEqual([]);
    // the allow-list names only operations that exist
    for (const name of [...Object.keys(NOT_TENANT_SCOPED), ...Object.keys(ISOLATED_ELSEWHERE)]) expect(all.map((c) => c.name)).toContain(name);
  });

  it("answers 404 with no data to another organization's keys and to the other mode's key, for every such operation", async () => {
    const owner = await createOrg();
    const stranger = await createOrg();
    const checked: string[] = [];
    for (const c of all.filter((x) => !NOT_TENANT_SCOPED[x.name] && !ISOLATED_ELSEWHERE[x.name])) {
      // a fresh object per operation: some of them change or delete it
      const ids: Record<string, string> = {};
      for (const p of c.params) ids[p.name] = await MAKERS[p.kind](owner);
      const body = await withRealIds(owner, exampleBody(doc, c.op));
      const testOnly = c.op.path.startsWith('/test_helpers/');
      const foreign: [string, Api, number][] = [
        ["another organization's test key", stranger.test, 404],
        ["another organization's live key", stranger.live, testOnly ? 403 : 404],
        ["the owner's live key", owner.live, testOnly ? 403 : 404],
      ];
      for (const [who, api, status] of foreign) {
        const res = await call(api, c, ids, body);
        if (res.status !== status) throw new Error(`${c.name} with ${who}: expected ${status}, got ${res.status}: ${res.text.slice(0, 500)}`);
        expectError(res, status);
      }
      // The same call by the owner finds the object: the 404s above came from the scoping, not from the request.
      const mine = await call(owner.test, c, ids, body);
      if (mine.status === 404 || mine.status >= 500) throw new Error(`${c.name} by the owner: got ${mine.status}: ${mine.text.slice(0, 500)}`);
      checked.push(c.name);
    }
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});
