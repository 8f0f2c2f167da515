import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningServer, startServer } from '../../support/server';

/** The JSON log lines of an output, parsed (the demo block and anything else that is not JSON left out). */
function jsonLines(output: string): Array<{ level: number; msg?: string; context?: string }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg?: string; context?: string });
}

/** Lines up to and including the one saying the service listens. */
function untilListening<T extends { msg?: string }>(lines: T[]): T[] {
  const end = lines.findIndex((l) => l.msg?.startsWith('listening on'));
  expect(end).toBeGreaterThanOrEqual(0);
  return lines.slice(0, end + 1);
}

describe('what a new user sees when the service starts', () => {
  const servers: RunningServer[] = [];
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('at the default level: a handful of lines, no route table, and the demo key framed on its own', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-start-output-'));
    folders.push(dataDir);
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'info', DEMO_ORGANIZATION: 'true' } });
    servers.push(server);
    // The console link printed at start opens the page where the demo's owner sets a password.
    const printed = /Console: +(\S+)/.exec(server.output());
    expect(printed).not.toBeNull();
    const page = await fetch(printed![1]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('owner@example.com');
    await server.stop();

    const output = server.output();
    const lines = untilListening(jsonLines(output));
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(lines.filter((l) => l.context === 'RouterExplorer' || l.context === 'InstanceLoader')).toEqual([]);
    expect(output).not.toContain('Mapped {');

    const block =
      /\n(=+)\nDemo organization created: org_\S+\nTest key \(shown once\): (sk_test_\w+)\n\nTry it: +curl -s (http:\/\/127\.0\.0\.1:\d+)\/auth\/debug_token -H "Authorization: Bearer (sk_test_\w+)"\nDocs: +(\S+)\nConsole: +(\S+)\n +\(one-time link, 24 h: set a password for owner@example\.com, the demo's owner, and sign in\)\n(=+)\n/.exec(
        output,
      );
    expect(block).not.toBeNull();
    const [, top, key, base, keyAgain, docs, signIn, bottom] = block!;
    expect(top).toBe(bottom);
    expect(keyAgain).toBe(key);
    expect(base).toBe(server.baseUrl);
    expect(docs).toBe(`${server.baseUrl}/docs`);
    expect(signIn).toMatch(new RegExp(`^${server.baseUrl.replace(/\./g, '\\.')}/console/link/\\S+$`));
  });

  it("in production on the embedded database creates no demo organization unless asked: its owner's link would go to the logs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-start-output-'));
    folders.push(dataDir);
    const production = {
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://api.example.test',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      RATE_SOURCES: 'none',
    };
    // DEMO_ORGANIZATION unset (the test servers' own default is false).
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'info', ...production, DEMO_ORGANIZATION: '' } });
    servers.push(server);
    await server.stop();
    expect(untilListening(jsonLines(server.output())).length).toBeGreaterThan(0);
    expect(server.output()).not.toContain('Demo organization created');
    expect(server.output()).not.toContain('/console/link/');
  });

  it('at debug, Nest wiring and the route table are still there for whoever asks', async () => {
    const server = await startServer({ databaseUrl: process.env.TEST_DATABASE_URL || undefined, env: { LOG_LEVEL: 'debug' } });
    servers.push(server);
    await server.stop();
    const routes = jsonLines(server.output()).filter((l) => l.context === 'RouterExplorer');
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.every((l) => l.level === 20)).toBe(true);
  });
});
