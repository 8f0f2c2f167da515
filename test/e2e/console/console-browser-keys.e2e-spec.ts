import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { Api, baseUrl } from '../../support/api';
import { addMember, ConsoleClient, PASSWORD, sql } from '../../support/console-client';
import { csvObjects } from '../../support/csv';
import { expectSuccess } from '../../support/envelope';
import { runCli, sharedCliEnv } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { Browser, launchBrowser, openPage, seriousViolations } from '../checkout/browser';
import { createInvoice, pay } from '../payments/payments-helpers';

/** An organization whose owner has set a password, and its keys. */
async function organization(): Promise<{ email: string; testKey: string }> {
  const email = `browser-keys-${process.pid}-${Date.now()}@example.com`;
  const res = await runCli(['org:create', '--name', 'Browser Keys Co', '--owner-email', email], sharedCliEnv());
  if (res.code !== 0) throw new Error(res.stderr);
  const out = JSON.parse(res.stdout) as { sign_in_url: string; test_key: string };
  const set = await new ConsoleClient().setPassword(out.sign_in_url, PASSWORD);
  if (set.status !== 200) throw new Error(`set password: ${set.status}`);
  return { email, testKey: out.test_key };
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/test$/);
}

const status = async (key: string) => (await new Api(key).get('/auth/debug_token')).status;

describe('management console in Chromium: keys, webhooks, exports', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('rolls an API key: both keys work during the grace period; the pages pass axe at 390 px', async () => {
    const { email } = await organization();
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`, { width: 390, height: 844 });
    await signIn(page, email);
    await page.goto(`${baseUrl()}/console/test/api-keys`);
    await page.fill('#key-name', 'Shop backend');
    await page.check('input[value=full]');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const old = (await page.locator('#new-key').textContent())!;
    expect(await status(old)).toBe(200);

    await page.goto(`${baseUrl()}/console/test/api-keys`);
    const row = page.locator('tr', { hasText: 'Shop backend' });
    await row.locator('select').selectOption('3600');
    await row.getByRole('button', { name: 'Roll: Shop backend' }).click();
    const fresh = (await page.locator('#new-key').textContent())!;
    expect(fresh).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(fresh).not.toBe(old);
    expect(await page.locator('#rolled-until').textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(await status(old)).toBe(200);
    expect(await status(fresh)).toBe(200);
    expect(await page.locator('tr', { hasText: 'Rolled; accepted until' }).count()).toBe(1);

    for (const path of ['/console/test/api-keys', '/console/test/webhooks', '/console/test/exports', '/console/live/api-keys']) {
      await page.goto(`${baseUrl()}${path}`);
      expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
      const overflowing = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > 391 && !e.closest('.scroll') && !e.classList.contains('sr-only'))
          .map((e: any) => `${e.tagName}.${e.className}`),
      );
      expect({ path, overflowing }).toEqual({ path, overflowing: [] });
    }
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('resends a failed webhook: the local receiver gets the second delivery', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { email, testKey } = await organization();
      const api = new Api(testKey);
      receiver.respondWith({ status: 503 });
      expectSuccess(await api.post('/webhooks', { url: receiver.url('/browser'), event_types: ['invoice.created'] }), 201);
      expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '4' }] }), 201);
      const [first] = await receiver.waitFor((r) => r.length >= 1);
      expect(first.answeredStatus).toBe(503);

      const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
      await signIn(page, email);
      await page.goto(`${baseUrl()}/console/test/webhooks`);
      // The failed attempt is listed with its response.
      await page.locator('tr', { hasText: 'failure 503' }).first().waitFor();
      await page
        .getByRole('button', { name: /^Resend: invoice\.created/ })
        .first()
        .click();
      expect(await page.locator('#webhook-notice').textContent()).toMatch(/Queued a new delivery: delivery_/);
      const received = await receiver.waitFor((r) => r.some((d) => d.answeredStatus === 200));
      const second = received.find((d) => d.answeredStatus === 200)!;
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      await page.reload();
      await page.locator('tr', { hasText: 'succeeded' }).first().waitFor();
      expect(problems.errors).toEqual([]);
      await page.close();
    } finally {
      await receiver.stop();
    }
  });

  it('exports the filtered invoices as CSV from the invoices page and parses the file', async () => {
    const { email, testKey } = await organization();
    const api = new Api(testKey);
    const mine = expectSuccess<{ id: string }>(
      await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '12.5' }], customer_email: 'csv@example.com' }),
      201,
    ).id;
    expectSuccess(
      await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }], customer_email: 'other@example.com' }),
      201,
    );
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
    await signIn(page, email);
    await page.goto(`${baseUrl()}/console/test/invoices`);
    await page.fill('#f-email', 'csv@example.com');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/customer_email=csv%40example\.com/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-invoices')]);
    expect(download.suggestedFilename()).toBe('invoices-test.csv');
    const csv = csvObjects(readFileSync(await download.path(), 'utf8'));
    expect(csv.rows.map((r) => r.id)).toEqual([mine]);
    expect(csv.rows[0]).toMatchObject({ price: '12.500000000000000000000000000000', customer_email: 'csv@example.com', status: 'PENDING' });
    expect(problems.errors).toEqual([]);
    await page.close();
  });
  it("exports last month's payments from the Exports page (a UTC period) and the payments page's filtered list, and parses the files", async () => {
    const { email, testKey } = await organization();
    const api = new Api(testKey);
    const paid = async (price: string) =>
      (await pay(api, { invoice_id: await createInvoice(api, price), provider_id: 'prov_card_usd', price, status: 'COMPLETED' })).id;
    const lastMonthId = await paid('42.5');
    const thisMonthId = await paid('7');
    // The first payment is dated in the middle of last month (UTC), as if made then.
    const now = new Date();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
    await sql(`UPDATE payments SET created_at = $2 WHERE id = $1`, [lastMonthId, new Date(first.getTime() + 14 * 86_400_000 + 3_600_000)]);
    const day = (d: Date) => d.toISOString().slice(0, 10);

    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
    await signIn(page, email);
    await page.goto(`${baseUrl()}/console/test/exports`);
    await page.fill('#payments-from', day(first));
    await page.fill('#payments-to', day(last));
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-form-payments button[type=submit]').click()]);
    const csv = csvObjects(readFileSync(await download.path(), 'utf8'));
    expect(csv.rows.map((r) => r.id)).toEqual([lastMonthId]);
    expect(csv.rows[0]).toMatchObject({ price: '42.500000000000000000000000000000', status: 'COMPLETED', provider_id: 'prov_card_usd' });

    // The payments page's button exports what the list shows (both payments here, newest first).
    await page.goto(`${baseUrl()}/console/test/payments?status=COMPLETED`);
    const [listed] = await Promise.all([page.waitForEvent('download'), page.click('#export-payments')]);
    const all = csvObjects(readFileSync(await listed.path(), 'utf8'));
    expect(all.rows.map((r) => r.id).sort()).toEqual([lastMonthId, thisMonthId].sort());
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it.each(['analyst', 'support'])(
    '%s: no key, roll or resend controls on the pages, and a post made from the page anyway is refused by the server',
    async (role) => {
      const receiver = await WebhookReceiver.start();
      try {
        const { email, testKey } = await organization();
        const api = new Api(testKey);
        const endpoint = expectSuccess<{ id: string }>(await api.post('/webhooks', { url: receiver.url('/roles'), event_types: ['invoice.created'] }), 201).id;
        expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '2' }] }), 201);
        await receiver.waitFor((r) => r.length >= 1);
        const owner = new ConsoleClient();
        await owner.signIn(email, PASSWORD);
        const member = await addMember(owner, role);
        const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
        await signIn(page, member.email);
        await page.goto(`${baseUrl()}/console/test/api-keys`);
        expect(await page.getByRole('button', { name: 'Create a key' }).count()).toBe(0);
        expect(await page.getByRole('button', { name: /^(Roll|Revoke)/ }).count()).toBe(0);
        await page.goto(`${baseUrl()}/console/test/webhooks`);
        expect(await page.locator(`section[data-endpoint="${endpoint}"]`).count()).toBe(1);
        expect(await page.getByRole('button', { name: /^Resend/ }).count()).toBe(0);
        // The same posts the buttons would make, sent from the page with its session and CSRF token.
        const answers = await page.evaluate(
          async ({ endpointId }) => {
            const g = globalThis as any;
            const csrf = String(JSON.parse(g.document.body.getAttribute('hx-headers'))['X-CSRF-Token']);
            const post = async (path: string, fields: Record<string, string>) => {
              const res = await g.fetch(path, { method: 'POST', body: new g.URLSearchParams({ _csrf: csrf, ...fields }), redirect: 'manual' });
              // The role's refusal, not the CSRF check's (both are 403).
              return `${res.status} ${(await res.text()).includes('Your role does not allow this.') ? 'role' : 'other'}`;
            };
            return [
              await post('/console/test/api-keys', { access: 'read_only', name: 'x' }),
              await post(`/console/test/webhooks/${endpointId}/resend`, { event_id: 'event_x' }),
            ];
          },
          { endpointId: endpoint },
        );
        expect(answers).toEqual(['403 role', '403 role']);
        expect(problems.errors.filter((e) => !e.includes('403'))).toEqual([]);
        await page.close();
      } finally {
        await receiver.stop();
      }
    },
  );
});
