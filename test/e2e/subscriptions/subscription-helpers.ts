import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { runWorkerPass } from '../../support/workers';

/** "YYYY-MM-DD HH:MM:SS" (UTC) of a Date. */
export const ts = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
export const parseTime = (s: string) => new Date(`${s.replace(' ', 'T')}Z`);

export async function clockNow(api: Api): Promise<Date> {
  return new Date(expectSuccess(await api.get('/test_helpers/clock')).now_iso);
}

/** Moves the organization's test clock to just past `target` (CLOCK_CONTROL=true). */
export async function moveClockTo(api: Api, target: Date, pastSeconds = 2): Promise<Date> {
  const now = await clockNow(api);
  const seconds = Math.ceil((target.getTime() - now.getTime()) / 1000) + pastSeconds;
  if (seconds < 1) return now;
  return new Date(expectSuccess(await api.post('/test_helpers/clock', { advance_seconds: seconds })).now_iso);
}

/**
 * Probes until `done` (or the time is up). `before`, when given, runs before each probe: a worker's pass
 * (`schedulerPass`), so a service whose scheduler never ticks (SUBSCRIPTIONS_TICK_SECONDS=0) is done at the
 * first probe instead of a tick later.
 */
export async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000, before?: () => Promise<unknown>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  await before?.();
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    await before?.();
    value = await probe();
  }
  return value;
}

/** One pass of the subscription scheduler on `api`'s service, run to its end (POST /test_helpers/workers/.../run). */
export const schedulerPass = (api: Api) => () => runWorkerPass(api, 'subscription-scheduler');

/** A product with one RECURRING schema (base price 10 USD) and the given terms and tiers. */
export async function recurringProduct(
  api: Api,
  terms: { payment_type: string; renew_type: string; billing_type: string; interval_type?: string; interval_count?: number; base_price?: number },
  configurations: unknown[] = [],
): Promise<{ productId: string; schemaId: string }> {
  const created = expectSuccess(
    await api.post('/products', {
      name: 'Metered plan',
      description: 'Monthly plan with metered API calls',
      metadata: {},
      schemas: [
        {
          name: 'Monthly',
          description: 'Monthly',
          currency: 'USD',
          type: 'RECURRING',
          base_price: terms.base_price ?? 10,
          interval_type: terms.interval_type ?? 'MONTH',
          interval_count: terms.interval_count ?? 1,
          payment_type: terms.payment_type,
          renew_type: terms.renew_type,
          billing_type: terms.billing_type,
          configurations,
        },
      ],
    }),
  );
  const product = expectSuccess(await api.get(`/products/${created.id}`));
  return { productId: created.id, schemaId: product.schemas[0].id };
}

export const API_CALL_TIERS = [
  { starts_at: 0, ends_at: 100, price_per_unit: 0, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
  { starts_at: 100, ends_at: 1000, price_per_unit: 0.01, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
  { starts_at: 1000, ends_at: null, price_per_unit: 0.005, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
  { starts_at: 0, ends_at: null, price_per_unit: 1, metric: { metric_key: 'active_users', name: 'Active users', aggregation_type: 'UNIQUE_COUNT' } },
];

export async function readSubscription(api: Api, id: string): Promise<any> {
  return expectSuccess(await api.get(`/subscriptions/${id}`));
}

export async function readInvoice(api: Api, id: string): Promise<any> {
  return expectSuccess(await api.post(`/invoices/${id}`, {}));
}

/** Waits until the subscription's latest invoice is another than `previous` (`before` each look: see waitFor); returns that invoice. */
export async function nextInvoice(api: Api, subscriptionId: string, previous: string | null, before?: () => Promise<unknown>): Promise<any> {
  const s = await waitFor(
    () => readSubscription(api, subscriptionId),
    (v) => v.latest_invoice_id !== previous,
    undefined,
    before,
  );
  if (s.latest_invoice_id === previous) throw new Error(`no new invoice for ${subscriptionId} (latest ${previous})`);
  return readInvoice(api, s.latest_invoice_id);
}

/** The 1st of the month `months` after the month of `d`, 00:00 UTC. */
export const monthStart = (d: Date, months: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
