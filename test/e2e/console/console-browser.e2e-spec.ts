import { baseUrl } from '../../support/api';
import { ConsoleClient, PASSWORD } from '../../support/console-client';
import { runCli, sharedCliEnv } from '../../support/server';
import { Browser, launchBrowser, openPage, seriousViolations } from '../checkout/browser';

/** An organization whose owner has set a password (not signed in in the browser yet). */
async function ownerWithPassword(): Promise<{ email: string }> {
  const email = `browser-${process.pid}-${Date.now()}@example.com`;
  const res = await runCli(['org:create', '--name', 'Browser Co', '--owner-email', email], sharedCliEnv());
  if (res.code !== 0) throw new Error(res.stderr);
  const set = await new ConsoleClient().setPassword(JSON.parse(res.stdout).sign_in_url, PASSWORD);
  if (set.status !== 200) throw new Error(`set password: ${set.status}`);
  return { email };
}

describe('management console in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signs in by keyboard only; every page has no serious axe violation, runs its scripts under the CSP and fits 390 px', async () => {
    const { email } = await ownerWithPassword();
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`, { width: 390, height: 844 });
    expect(await seriousViolations(page)).toEqual([]);
    // The email field has focus on load; Tab to the password, Enter submits.
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/test$/);
    expect(await page.locator('h1').textContent()).toBe('Overview');
    // Chart.js ran (a script from the service) and drew its four charts: volume, invoices, status mix, payment methods.
    await page.waitForFunction(() => typeof (globalThis as any).Chart !== 'undefined');
    expect(await page.evaluate(() => Object.keys((globalThis as any).Chart.instances ?? {}).length)).toBe(4);
    for (const path of ['/console/test', '/console/test/invoices', '/console/test/api-keys', '/console/test/members', '/console/test/audit', '/console/live']) {
      await page.goto(`${baseUrl()}${path}`);
      expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
      // Nothing outside a table's own scroll box crosses the 390 px viewport (wide tables scroll in place).
      const overflowing = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > 391 && !e.closest('.scroll') && !e.classList.contains('sr-only'))
          .map((e: any) => `${e.tagName}.${e.className}`),
      );
      expect({ path, overflowing }).toEqual({ path, overflowing: [] });
      // The mode is always shown.
      expect(await page.locator('.badge').count()).toBe(1);
    }
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('creates an API key and shows its secret once; invites an analyst, who sets a password, signs in and has no key form', async () => {
    const { email } = await ownerWithPassword();
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/console\/test$/);

    await page.goto(`${baseUrl()}/console/test/api-keys`);
    await page.check('input[value=read_only]');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const secret = (await page.locator('#new-key').textContent())!;
    expect(secret).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    await page.goto(`${baseUrl()}/console/test/api-keys`);
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await page.content()).toContain(secret.slice(0, 14));

    await page.goto(`${baseUrl()}/console/test/members`);
    const analystEmail = `analyst-${Date.now()}@example.com`;
    await page.fill('#invite-email', analystEmail);
    await page.selectOption('#invite-role', 'analyst');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.locator('#one-time-link').textContent())!;
    expect(link).toContain('/console/link/');

    const other = await browser.context.browser()?.newContext();
    const analyst = other ? await other.newPage() : await browser.context.newPage();
    await analyst.goto(`${baseUrl()}${new URL(link).pathname}`);
    expect(await seriousViolations(analyst)).toEqual([]);
    await analyst.fill('#password', 'an analyst password');
    await analyst.click('button[type=submit]');
    await analyst.locator('.notice.info').waitFor();
    await analyst.fill('#password', 'an analyst password');
    await analyst.click('button[type=submit]');
    await analyst.waitForURL(/\/console\/test$/);
    await analyst.goto(`${baseUrl()}/console/test/api-keys`);
    expect(await analyst.getByRole('button', { name: 'Create a key' }).count()).toBe(0);
    expect(await analyst.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    expect(await analyst.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(problems.errors).toEqual([]);
    await analyst.close();
    await page.close();
  });
});
