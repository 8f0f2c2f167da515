import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { BrowserContext, chromium, ConsoleMessage, Locator, Page } from 'playwright-core';
import { ROOT } from '../../support/server';

/** Debian's Chromium (installed by .ci/run); no browser is ever downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'test', 'artifacts', 'checkout');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium on a fresh profile, talking to nothing but 127.0.0.1. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'checkout-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What the page said on its console (errors only) and what it threw. */
export interface PageProblems {
  errors: string[];
}

export async function openPage(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 800 },
  headers?: Record<string, string>,
): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  // Request headers of the page itself (the browser's own Accept-Language follows its locale otherwise).
  if (headers)
    await page.route(
      (u) => u.href === url,
      (route) => route.continue({ headers: { ...route.request().headers(), ...headers } }),
    );
  const problems: PageProblems = { errors: [] };
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    // The answer of POST /invoices/{id}/payment_address when no rail is configured is a 400 the page
    // handles (it explains that no address is available); Chromium still logs the failed request.
    if (msg.text().startsWith('Failed to load resource') && msg.location().url.includes('/payment_address')) return;
    problems.errors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => problems.errors.push(`uncaught: ${err.message}`));
  await page.goto(url);
  return { page, problems };
}

/** axe-core on the page as it stands: the serious and critical violations (none expected). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected
  // <script> would be refused, as it should be).
  await page.evaluate(AXE);
  // Code run in the page is typed loosely: the project compiles without the DOM library.
  type Violation = { id: string; impact: string; help: string; nodes: Array<{ target: string[] }> };
  const result: { violations: Violation[] } = await page.evaluate(async () => {
    const g = globalThis as any;
    return g.axe.run(g.document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

/** Full-page screenshots of the current state at phone and desktop sizes, under test/artifacts/checkout/. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  const files: string[] = [];
  for (const [label, size] of [
    ['360x740', PHONE],
    ['1280x800', DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    const file = join(ARTIFACTS, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: true });
    files.push(file);
  }
  await page.setViewportSize(before);
  return files;
}

/**
 * Decodes the QR code the page shows: a screenshot of the element, turned back into pixels on a
 * blank page of the same browser (no CSP there), read with jsQR.
 */
export async function decodeQr(browser: Browser, page: Page, selector: string): Promise<string | null> {
  const png = await page.locator(selector).screenshot();
  const blank = await browser.context.newPage();
  try {
    const pixels: { width: number; height: number; data: number[] } = await blank.evaluate(async (b64: string) => {
      const g = globalThis as any;
      const document = g.document;
      const img = new g.Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height);
      return { width: data.width, height: data.height, data: Array.from(data.data) };
    }, png.toString('base64'));
    const code = jsQR(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height);
    return code?.data ?? null;
  } finally {
    await blank.close();
  }
}

/**
 * Waits until what the page shows meets the expectation (the page updates by itself), or fails
 * naming what it last saw. Playwright's own `expect` belongs to its test runner; this is Jest.
 */
export function see(locator: Locator, timeoutMs = 10_000) {
  const until = async <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await read();
        last = value;
        if (ok(value)) return;
      } catch (e) {
        last = (e as Error).message.split('\n')[0];
      }
      if (Date.now() > deadline) throw new Error(`expected ${locator} ${what}; last saw ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const text = () =>
    locator
      .first()
      .innerText({ timeout: 500 })
      .then((t) => t.replace(/\s+/g, ' ').trim());
  const matches = (t: string, want: string | RegExp) => (typeof want === 'string' ? t.includes(want) : want.test(t));
  return {
    toHaveText: (want: string) => until(`to have text ${JSON.stringify(want)}`, text, (t) => t === want),
    toContainText: (want: string | RegExp) => until(`to contain ${String(want)}`, text, (t) => matches(t, want)),
    toHaveAttribute: (name: string, want: string) =>
      until(
        `to have ${name}=${want}`,
        () => locator.first().getAttribute(name, { timeout: 500 }),
        (v) => v === want,
      ),
    toBeVisible: () =>
      until(
        'to be visible',
        () => locator.first().isVisible(),
        (v) => v,
      ),
    toBeHidden: () =>
      until(
        'to be hidden',
        () => locator.first().isHidden(),
        (v) => v,
      ),
    toBeEnabled: () =>
      until(
        'to be enabled',
        () => locator.first().isEnabled({ timeout: 500 }),
        (v) => v,
      ),
    toBeDisabled: () =>
      until(
        'to be disabled',
        () => locator.first().isDisabled({ timeout: 500 }),
        (v) => v,
      ),
    toBeFocused: () =>
      until(
        'to be focused',
        () => locator.first().evaluate((el) => el === (globalThis as any).document.activeElement, undefined, { timeout: 500 }),
        (v) => v,
      ),
    toHaveCount: (n: number) =>
      until(
        `to count ${n}`,
        () => locator.count(),
        (v) => v === n,
      ),
  };
}
