import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The subscriptions catalog keeps a schema's metrics per process once read. What it keeps answers only
 * the scope, product and schema it was read for: another organization (or the other mode) naming the
 * same ids is asked of the products module in its own scope and finds nothing. Runs the built class
 * (`npm test` builds first) in a child process, as Nest's packages are ES modules, with a query bus that
 * answers as the products module does: the product in its organization's test mode only.
 */
const ROOT = resolve(__dirname, '..', '..', '..');

const SCRIPT = `
const { SubscriptionCatalog } = require('./dist/src/modules/subscriptions/subscription-catalog.js');
const { NotFoundError } = require('./dist/src/shared/errors/domain-error.js');
const product = {
  id: 'product_shop', version_group_id: 'product_shop', is_active: true, name: 'API plan', organization_id: 'org_shop',
  description: '', image_id: null, image: null, metadata: {}, created_at: '2026-11-01 00:00:00', updated_at: null,
  schemas: [{
    id: 'schema_shop', version_group_id: 'schema_shop', organization_id: 'org_shop', product_id: 'product_shop', is_active: true,
    name: 'Monthly', description: '', type: 'RECURRING', currency: 'USD', base_price: '10', interval_type: 'MONTH', interval_count: 1,
    payment_type: null, renew_type: null, billing_type: null, created_at: '2026-11-01 00:00:00', updated_at: null,
    configurations: [{ starts_at: '0', ends_at: null, price_per_unit: '0.01', metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } }],
  }],
};
let asked = 0;
const bus = {
  async execute(q) {
    asked++;
    if (q.scope.organizationId !== 'org_shop' || q.scope.mode !== 'test' || q.productId !== product.id) throw new NotFoundError('product');
    return product;
  },
};
(async () => {
  const catalog = new SubscriptionCatalog(bus);
  const shop = { organizationId: 'org_shop', mode: 'test' };
  const read = async (scope) => [...(await catalog.metrics(scope, 'product_shop', 'schema_shop')).values()].map((m) => m.metricKey + '@' + m.tiers[0].pricePerUnit.toFixed());
  const out = { first: await read(shop) };
  out.askedAfterFirst = asked;
  out.again = await read(shop);
  out.askedAfterAgain = asked;
  out.otherOrganization = await read({ organizationId: 'org_other', mode: 'test' });
  out.liveMode = await read({ organizationId: 'org_shop', mode: 'live' });
  out.askedAtEnd = asked;
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('the subscriptions catalog remembers metrics per scope', () => {
  it("answers a schema's metrics from memory in its own scope, and none to another organization or mode naming the same ids", () => {
    const run = spawnSync(process.execPath, ['-e', SCRIPT], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    if (run.status !== 0) throw new Error(run.stderr);
    expect(JSON.parse(run.stdout)).toEqual({
      first: ['api_calls@0.01'],
      askedAfterFirst: 1,
      again: ['api_calls@0.01'],
      askedAfterAgain: 1,
      otherOrganization: [],
      liveMode: [],
      askedAtEnd: 3,
    });
  });
});
