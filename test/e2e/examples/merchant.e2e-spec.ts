import { ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { freePort, ROOT } from '../../support/server';
import { attemptsOf } from '../../support/webhook-receiver';

/**
 * examples/ runs as a merchant runs it (node on the .mjs files, nothing built) against the test
 * service: register the webhook URL, place an order (an invoice, the payer sent to its checkout
 * page), pay it with the test helpers, and see the shop verify invoice.completed and ship the
 * order; webhooks that were tampered with or signed with another secret are refused.
 */
const EXAMPLE = join(ROOT, 'examples', 'merchant');
const run = promisify(execFile);

interface Shop {
  url: string;
  process: ChildProcess;
  output(): string;
  /** Waits until a line of the shop's output matches, and returns the match. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

function exampleEnv(org: TestOrg, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, API_BASE_URL: baseUrl(), API_KEY: org.testKey, ...extra };
}

async function startShop(org: TestOrg, port: number, secret: string): Promise<Shop> {
  const child = spawn(process.execPath, [join(EXAMPLE, 'shop.mjs')], {
    cwd: join(ROOT, 'examples'),
    env: exampleEnv(org, { PORT: String(port), WEBHOOK_SECRET: secret }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const shop: Shop = {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the shop did not print ${pattern}; its output:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  await shop.waitFor(/shop listening on/);
  return shop;
}

describe('examples/merchant against the service', () => {
  let org: TestOrg;
  let shop: Shop;
  let secret: string;
  let endpointId: string;

  beforeAll(async () => {
    org = await createOrg();
    const port = await freePort();
    const registered = await run(process.execPath, [join(EXAMPLE, 'register-webhook.mjs')], {
      env: exampleEnv(org, { SHOP_URL: `http://127.0.0.1:${port}` }),
    });
    secret = /^WEBHOOK_SECRET=(whsec_\S+)$/m.exec(registered.stdout)![1];
    endpointId = /webhook endpoint (webhook_\S+) registered/.exec(registered.stdout)![1];
    shop = await startShop(org, port, secret);
  });

  afterAll(async () => {
    shop?.process.kill('SIGTERM');
    if (shop && shop.process.exitCode === null) await new Promise((r) => shop.process.once('exit', r));
  });

  async function placeOrder(amount: string): Promise<{ order_id: string; invoice_id: string; checkout_url: string; location: string }> {
    const res = await fetch(`${shop.url}/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount, currency: 'USD', email: 'payer@example.com' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const data = (await res.json()) as { order_id: string; invoice_id: string; checkout_url: string };
    return { ...data, location: res.headers.get('location') ?? '' };
  }

  async function orderStatus(orderId: string): Promise<string> {
    const res = await fetch(`${shop.url}/orders/${orderId}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { status: string }).status;
  }

  it('registers its webhook URL with the subscribed invoice events', async () => {
    const endpoint = expectSuccess(await org.test.get(`/webhooks/${endpointId}`));
    expect(endpoint).toMatchObject({ url: `${shop.url}/webhooks`, enabled: true });
    expect([...endpoint.event_types].sort()).toEqual(['invoice.completed', 'invoice.expired', 'invoice.voided']);
  });

  it('creates an invoice, sends the payer to its checkout page, then ships the order on a verified invoice.completed', async () => {
    const placed = await placeOrder('12.50');
    await shop.waitFor(new RegExp(`invoice ${placed.invoice_id} created for order ${placed.order_id} \\(12\\.50* USD\\); payer sent to ${placed.location}`));

    // The invoice exists in the merchant's test mode, tied to the order, and the redirect is its checkout page.
    const invoice = expectSuccess(await org.test.post(`/invoices/${placed.invoice_id}`, {}));
    expect(invoice).toMatchObject({ status: 'PENDING', currency: 'USD', metadata: { order_id: placed.order_id }, customer_email: 'payer@example.com' });
    expect(invoice.price).toMatch(/^12\.50{29}$/);
    expect(placed.location).toBe(new URL(invoice.checkout_url as string, `${baseUrl()}/`).href);
    expect(placed.location).toBe(`${baseUrl()}/checkout/${invoice.id}`);
    const page = await fetch(placed.location);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await orderStatus(placed.order_id)).toBe('pending');

    // The payer pays (simulated in test mode); the service signs and sends invoice.completed.
    const paid = await run(process.execPath, [join(EXAMPLE, 'pay-test-invoice.mjs'), placed.invoice_id], { env: exampleEnv(org, {}) });
    expect(paid.stdout).toMatch(new RegExp(`payment payment_\\S+ of [\\d.]+ \\w+ recorded: invoice ${placed.invoice_id} is COMPLETED`));

    const verified = await shop.waitFor(new RegExp(`webhook (event_\\S+) verified: invoice\\.completed ${placed.invoice_id}`));
    await shop.waitFor(new RegExp(`order ${placed.order_id} paid: invoice ${placed.invoice_id} is COMPLETED; shipping it`));
    expect(await orderStatus(placed.order_id)).toBe('paid');

    // The event the shop verified is the service's invoice.completed, and the service recorded the delivery as accepted.
    const event = expectSuccess(await org.test.post(`/events/${verified[1]}`, {}));
    expect(event).toMatchObject({ type: 'invoice.completed', data: { object: { id: placed.invoice_id, status: 'COMPLETED' } } });
    // The shop logs before it answers, and the service records the answer after it arrives: wait for the record.
    const attempts = await attemptsOf(org.test, endpointId, 1, { event_id: event.id });
    expect(attempts).toEqual([expect.objectContaining({ succeeded: true, response_status: 204 })]);
  });

  it('refuses a webhook whose body was changed after signing, or signed with another secret, and ships nothing', async () => {
    const placed = await placeOrder('7');
    const body = JSON.stringify({
      id: 'event_forged-0001',
      type: 'invoice.completed',
      created_at: '2026-11-21 10:00:00',
      organization_id: org.id,
      mode: 'test',
      data: { object: { id: placed.invoice_id, status: 'COMPLETED', metadata: { order_id: placed.order_id } } },
    });
    const send = async (signedWith: string, sentBody: string, id: string) => {
      const timestamp = new Date();
      const res = await fetch(`${shop.url}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(signedWith).sign(id, timestamp, body),
        },
        body: sentBody,
      });
      return res.status;
    };

    // Signed with the right secret, then one field changed on the way.
    expect(await send(secret, body.replace('"mode":"test"', '"mode":"live"'), 'event_forged-0001')).toBe(400);
    await shop.waitFor(/webhook refused \(event_forged-0001\): .+/);
    // Signed with a secret that is not the endpoint's.
    const other = `whsec_${Buffer.from('a secret that is not the shop one').toString('base64')}`;
    expect(await send(other, body, 'event_forged-0002')).toBe(400);
    await shop.waitFor(/webhook refused \(event_forged-0002\): .+/);
    // No signature at all.
    const unsigned = await fetch(`${shop.url}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(unsigned.status).toBe(400);

    expect(shop.output()).not.toContain(`order ${placed.order_id} paid`);
    expect(await orderStatus(placed.order_id)).toBe('pending');

    // The same body, untampered and signed with the endpoint's secret, is what the shop accepts.
    expect(await send(secret, body, 'event_forged-0003')).toBe(204);
    await shop.waitFor(new RegExp(`order ${placed.order_id} paid`));
  });

  it('depends on standardwebhooks alone, at the version this repository uses', () => {
    const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(Object.keys(example.dependencies)).toEqual(['standardwebhooks']);
    expect(example.dependencies.standardwebhooks).toBe(root.dependencies.standardwebhooks);
  });
});
