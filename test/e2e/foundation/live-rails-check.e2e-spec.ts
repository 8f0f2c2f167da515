import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, dropDatabase } from '../../support/pg';
import { runUntilExit, startServer } from '../../support/server';

const pgServer = process.env.TEST_PG_SERVER_URL;

/** What production needs besides chains (PUBLIC_BASE_URL, SECRETS_KEY). */
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.test', SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') };

/** A CHAINS_FILE with `chains` in it, as deploy/chains.json ships ({"live": {}, "test": {}}) by default. */
function chainsFile(chains: unknown = { live: {}, test: {} }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'live-rails-')), 'chains.json');
  writeFileSync(file, JSON.stringify(chains));
  return file;
}

/** The JSON log lines of an output at error level (pino's 50) whose event is no_live_rails. */
function loggedAt(output: string, level: number): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; event?: string; msg: string })
    .filter((line) => line.level === level && line.event === 'no_live_rails')
    .map((line) => line.msg);
}

describe('start-up in production with no live network to take payments', () => {
  it('refuses to start, saying at error level that live mode can take no payment and how to fix it', async () => {
    const file = chainsFile();
    const { code, output } = await runUntilExit({ ...PRODUCTION, CHAINS_FILE: file });
    expect(code).toBe(1);
    const [line, ...more] = loggedAt(output, 50);
    expect(more).toEqual([]);
    expect(line).toContain('live mode can take no payment');
    expect(line).toContain(`CHAINS_FILE (${file}) names no network in its "live" section`);
    expect(line).toContain('docs/going-live.md');
    expect(line).toContain('ALLOW_NO_LIVE_RAILS=true');
    expect(output).not.toContain('listening');
  });

  it('refuses without CHAINS_FILE at all, and with only a test section', async () => {
    const unset = await runUntilExit({ ...PRODUCTION, CHAINS_FILE: '' });
    expect(unset.code).toBe(1);
    expect(loggedAt(unset.output, 50).join('\n')).toContain('live mode can take no payment: CHAINS_FILE is not set');
    const testOnly = await runUntilExit({
      ...PRODUCTION,
      CHAINS_FILE: chainsFile({ test: { ethereum: { rpc_url: 'http://127.0.0.1:1', chain_id: 11155111 } } }),
    });
    expect(testOnly.code).toBe(1);
    expect(loggedAt(testOnly.output, 50).join('\n')).toContain('live mode can take no payment');
  });

  // An ALLOW_NO_LIVE_RAILS that is not true or false is refused like any bad setting, naming it: checked
  // by src/modules/rails/rails.config.spec.ts (its loader), as src/shared/config/app-config.spec.ts checks
  // the other settings; test/e2e/foundation/config.e2e-spec.ts sees such a refusal stop the built service.

  describe('with a database', () => {
    let databaseUrl: string | undefined;
    beforeAll(async () => {
      if (pgServer) databaseUrl = await createDatabase(pgServer);
    });
    afterAll(async () => {
      if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
    });

    it('starts with ALLOW_NO_LIVE_RAILS=true, still saying at warn level that live mode can take no payment', async () => {
      const server = await startServer({
        databaseUrl,
        env: { ...PRODUCTION, LOG_LEVEL: 'info', CHAINS_FILE: chainsFile(), ALLOW_NO_LIVE_RAILS: 'true' },
      });
      try {
        expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
        expect(loggedAt(server.output(), 50)).toEqual([]);
        const [line] = loggedAt(server.output(), 40);
        expect(line).toContain('live mode can take no payment');
        expect(line).toContain('starting anyway because ALLOW_NO_LIVE_RAILS=true');
      } finally {
        await server.stop();
      }
    }, 90_000);

    it('outside production starts with an empty chains file without the opt-out, saying nothing of it', async () => {
      const server = await startServer({ databaseUrl, env: { LOG_LEVEL: 'info', ALLOW_NO_LIVE_RAILS: undefined, CHAINS_FILE: chainsFile() } });
      try {
        expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
        expect(server.output()).not.toContain('live mode can take no payment');
      } finally {
        await server.stop();
      }
    }, 90_000);

    it('starts without the opt-out when the live section names a network, and says nothing of it', async () => {
      const server = await startServer({
        databaseUrl,
        env: {
          ...PRODUCTION,
          LOG_LEVEL: 'info',
          ALLOW_NO_LIVE_RAILS: undefined,
          CHAIN_WATCHER: 'false',
          CHAINS_FILE: chainsFile({ live: { litecoin: { rpc_url: 'http://${LTC_RPC_AUTH}@127.0.0.1:1' } }, test: {} }),
          LTC_RPC_AUTH: 'user:password',
        },
      });
      try {
        expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
        expect(server.output()).not.toContain('live mode can take no payment');
      } finally {
        await server.stop();
      }
    }, 90_000);
  });
});
