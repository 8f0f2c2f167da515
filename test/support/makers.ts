import { expectSuccess } from './envelope';
import type { TestOrg } from './factories';
import { productBody, recurringSchema } from '../e2e/products/product-bodies';
import { freshAccount } from '../e2e/rails/rails-helpers';

/** How to make a real object of each kind with an organization's test key; returns its id. */
export type Maker = (org: Pick<TestOrg, 'test'>) => Promise<string>;

export const MAKERS: Record<string, Maker> = {
  product: async (org) => expectSuccess(await org.test.post('/products', productBody())).id,
  invoice: async (org) => expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '50' }] }), 201).id,
  payment: async (org) => {
    const invoice = await MAKERS.invoice(org);
    return expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '10' }), 201).id;
  },
  file: async (org) => {
    const form = new FormData();
    form.append('file', new Blob(['tenant isolation'], { type: 'text/plain' }), 'isolation.txt');
    return expectSuccess(await org.test.request('POST', '/files/upload', { rawBody: form })).id;
  },
  refund: async (org) => {
    const invoice = await MAKERS.invoice(org);
    await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '50', status: 'COMPLETED' });
    return expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10' }), 201).id;
  },
  // A key of its own: a key another organization registered is refused.
  wallet: async (org) => expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201).id,
  subscription: async (org) => {
    const product = expectSuccess(await org.test.post('/products', productBody({ schemas: [recurringSchema()] }))).id;
    const schema = expectSuccess(await org.test.get(`/products/${product}`)).schemas[0].id;
    return expectSuccess(
      await org.test.post('/subscriptions', { product_id: product, billing_schema_id: schema, customer_email: 'isolation@example.com' }),
      201,
    ).id;
  },
  webhook: async (org) => expectSuccess(await org.test.post('/webhooks', { url: 'http://127.0.0.1:9/hooks', event_types: ['*'] }), 201).id,
  event: async (org) => {
    const product = await MAKERS.product(org);
    const events = expectSuccess(await org.test.post('/events', { type: ['product.created'], limit: 100 })).items as {
      id: string;
      data: { object: { id: string } };
    }[];
    const event = events.find((e) => e.data?.object?.id === product);
    if (!event) throw new Error(`no product.created event for ${product}`);
    return event.id;
  },
};

/** A body with every top-level `<kind>_id` field replaced by a real object of the organization. */
export async function withRealIds(org: Pick<TestOrg, 'test'>, body: unknown): Promise<unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [name, value] of Object.entries(out)) {
    const kind = /^(.+)_id$/.exec(name)?.[1];
    if (kind && MAKERS[kind] && typeof value === 'string') out[name] = await MAKERS[kind](org);
  }
  return out;
}

const SINGULAR: Record<string, string> = {
  invoices: 'invoice',
  payments: 'payment',
  products: 'product',
  files: 'file',
  webhooks: 'webhook',
  quotes: 'quote',
  events: 'event',
  wallets: 'wallet',
  refunds: 'refund',
  subscriptions: 'subscription',
};

/** The kind of object a path parameter names: `{invoice_id}` -> invoice; `/products/{id}` -> product. */
export function kindOf(path: string, param: string): string {
  const named = /^(.+)_id$/.exec(param);
  if (named) return named[1];
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf(`{${param}}`);
  const collection = segments[at - 1] ?? param;
  return SINGULAR[collection] ?? collection.replace(/s$/, '');
}
