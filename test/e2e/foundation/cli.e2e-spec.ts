import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, runCli, sharedCliEnv } from '../../support/server';

async function cli(...args: string[]) {
  return runCli(args, sharedCliEnv());
}

/** Runs a command that must succeed and returns the one JSON value it printed. */
async function cliJson(...args: string[]): Promise<any> {
  const res = await cli(...args);
  if (res.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

describe('operator CLI', () => {
  it('org:create prints one JSON object whose keys work against the running service', async () => {
    const res = await cli('org:create', '--name', 'Acme CLI');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(['live_key', 'name', 'organization_id', 'test_key']);
    expect(out.name).toBe('Acme CLI');
    expect(out.organization_id).toMatch(/^org_[0-9a-f-]{36}$/);
    expect(out.test_key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(out.live_key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);

    const test = expectSuccess(await new Api(out.test_key).get('/auth/debug_token'));
    expect(test).toMatchObject({ organization_id: out.organization_id, organization_name: 'Acme CLI', mode: 'test', read_only: false });
    const live = await new Api(`Bearer ${out.live_key}`).get('/auth/debug_token');
    expect(expectSuccess(live).mode).toBe('live');
    expect(live.body.env).toBe('production');
  });

  it('key:create issues keys of the asked mode, read-only on request', async () => {
    const org = await cliJson('org:create', '--name', 'Keys Co');
    const readOnly = await cliJson('key:create', '--org', org.organization_id, '--mode', 'test', '--read-only');
    expect(readOnly).toMatchObject({ organization_id: org.organization_id, mode: 'test', read_only: true });
    expect(readOnly.key).toMatch(/^sk_test_/);
    expect(expectSuccess(await new Api(readOnly.key).get('/auth/debug_token'))).toMatchObject({ read_only: true, mode: 'test' });

    // The switch written with a value means the same, and a value it cannot mean is refused, never read as off.
    expect(await cliJson('key:create', '--org', org.organization_id, '--mode', 'live', '--read-only=true')).toMatchObject({ mode: 'live', read_only: true });
    expect(await cliJson('key:create', '--org', org.organization_id, '--mode', 'test', '--read-only', 'true')).toMatchObject({ read_only: true });
    const refused = await cli('key:create', '--org', org.organization_id, '--mode', 'live', '--read-only=yes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--read-only is a switch');

    const live = await cliJson('key:create', '--org', org.organization_id, '--mode', 'live');
    expect(live).toMatchObject({ mode: 'live', read_only: false });
    expect(expectSuccess(await new Api(live.key).get('/auth/debug_token'))).toMatchObject({ read_only: false, mode: 'live' });
  });

  it('key:list shows prefixes, never full keys', async () => {
    const org = await cliJson('org:create', '--name', 'List Co');
    const extra = await cliJson('key:create', '--org', org.organization_id, '--mode', 'live', '--read-only');
    const res = await cli('key:list', '--org', org.organization_id);
    expect(res.code).toBe(0);
    const keys = JSON.parse(res.stdout) as Array<Record<string, unknown>>;
    expect(keys).toHaveLength(3);
    expect(keys.map((k) => k.prefix).sort()).toEqual([org.test_key, org.live_key, extra.key].map((k: string) => k.slice(0, 14)).sort());
    expect(keys.find((k) => k.prefix === extra.key.slice(0, 14))).toMatchObject({ mode: 'live', read_only: true, revoked_at: null });
    for (const full of [org.test_key, org.live_key, extra.key]) expect(res.stdout).not.toContain(full);
    for (const k of keys) expect(k).not.toHaveProperty('key');
  });

  it('key:revoke by full key and by prefix makes the key answer 401', async () => {
    const org = await cliJson('org:create', '--name', 'Revoke Co');
    const byKey = await cliJson('key:create', '--org', org.organization_id, '--mode', 'test');
    const byPrefix = await cliJson('key:create', '--org', org.organization_id, '--mode', 'live');
    expectSuccess(await new Api(byKey.key).get('/auth/debug_token'));
    expectSuccess(await new Api(byPrefix.key).get('/auth/debug_token'));

    const first = await cliJson('key:revoke', '--key', byKey.key);
    expect(first.revoked).toEqual([expect.objectContaining({ prefix: byKey.key.slice(0, 14), organization_id: org.organization_id })]);
    expectError(await new Api(byKey.key).get('/auth/debug_token'), 401, { code: 'invalid_api_key' });

    await cliJson('key:revoke', '--key', byPrefix.key.slice(0, 14), '--org', org.organization_id);
    expectError(await new Api(byPrefix.key).get('/auth/debug_token'), 401, { code: 'invalid_api_key' });

    // the organization's other keys keep working
    expectSuccess(await new Api(org.test_key).get('/auth/debug_token'));
    const listed = await cliJson('key:list', '--org', org.organization_id);
    expect(listed.filter((k: any) => k.revoked_at !== null)).toHaveLength(2);
  }, 120_000);

  it("key:revoke by prefix needs the organization and never touches another organization's key", async () => {
    const owner = await cliJson('org:create', '--name', 'Prefix owner');
    const other = await cliJson('org:create', '--name', 'Prefix other');
    const prefix = owner.live_key.slice(0, 14);

    // a prefix alone is refused with a message saying what to add; the key keeps working
    const alone = await cli('key:revoke', '--key', prefix);
    expect(alone.code).toBe(1);
    expect(alone.stdout).toBe('');
    const refused = JSON.parse(alone.stderr.trim().split('\n').pop()!);
    expect(refused).toMatchObject({
      code: 'organization_required',
      validator: { organization_id: expect.stringMatching(/required to revoke by display prefix/) },
    });
    expect(refused.error).toMatch(/organization/);
    expectSuccess(await new Api(owner.live_key).get('/auth/debug_token'));

    // the prefix under another organization matches nothing there
    const elsewhere = await cli('key:revoke', '--key', prefix, '--org', other.organization_id);
    expect(elsewhere.code).toBe(1);
    expect(JSON.parse(elsewhere.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'api_key_not_found' });
    expectSuccess(await new Api(owner.live_key).get('/auth/debug_token'));

    // a full key named with the wrong organization is not revoked either
    const wrongOrg = await cli('key:revoke', '--key', owner.test_key, '--org', other.organization_id);
    expect(JSON.parse(wrongOrg.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'api_key_not_found' });
    expectSuccess(await new Api(owner.test_key).get('/auth/debug_token'));

    // with its own organization it is revoked, and only that key
    const done = await cliJson('key:revoke', '--key', prefix, '--org', owner.organization_id);
    expect(done.revoked).toEqual([expect.objectContaining({ prefix, organization_id: owner.organization_id })]);
    expectError(await new Api(owner.live_key).get('/auth/debug_token'), 401, { code: 'invalid_api_key' });
    expectSuccess(await new Api(other.live_key).get('/auth/debug_token'));
  }, 180_000);

  it.each([
    [['org:create'], /--name is required/],
    [['key:create', '--org', 'org_x', '--mode', 'staging'], /--mode must be test or live/],
    [['key:list'], /--org is required/],
    [['key:revoke'], /--key is required/],
  ])('bad usage %p exits non-zero with a JSON error on stderr', async (args, message) => {
    const res = await cli(...args);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    const err = JSON.parse(res.stderr.trim().split('\n').pop()!);
    expect(err.error).toMatch(message);
  });

  it('reports a domain failure (unknown organization) as JSON with its code', async () => {
    const res = await cli('key:create', '--org', 'org_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '--mode', 'test');
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(JSON.parse(res.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'organization_not_found' });
  });

  it('answers an unknown command with usage and a non-zero exit', async () => {
    const res = await cli('org:explode');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('Unknown command "org:explode"');
    expect(res.stderr).toContain('org:create --name NAME');
  });

  it('prints its usage for --help (and -h, help) on stdout, with success', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await cli(flag);
      expect([flag, res.code]).toEqual([flag, 0]);
      expect(res.stdout).toContain('Usage: npm run --silent cli -- <command> [options]');
      expect(res.stdout).toContain('org:list');
      expect(res.stdout).toContain('key:list --org ORG_ID');
      expect(res.stderr).not.toContain('Unknown command');
    }
  });

  it("answers in a process of its own exactly as in the tests' CLI host (exit code, stdout, stderr)", async () => {
    // The other tests here run their commands in the worker's CLI host (test/support/cli-host.cjs): the CLI's own
    // runCli in a process that stays. A process of its own is what an operator runs; both must say the same.
    const org = (await cliJson('org:create', '--name', 'Twice Co')) as { organization_id: string };
    for (const args of [
      ['key:list', '--org', org.organization_id],
      ['key:create', '--org', org.organization_id, '--mode', 'staging'],
      ['key:create', '--org', 'org_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '--mode', 'test'],
      ['org:explode'],
      ['--help'],
    ]) {
      const inHost = await runCli(args, sharedCliEnv());
      const alone = await runCli(args, sharedCliEnv(), { process: true });
      expect({ args, ...alone }).toEqual({ args, ...inHost });
      expect(alone.stdout + alone.stderr).not.toBe('');
    }
  });

  it('loads none of the application for --help, an unknown command or a usage error of an HTTP command (a database command loads it)', () => {
    // Counts, as the process exits, the modules of the service (dist/src/modules, dist/src/bootstrap.js) it loaded.
    const counter = join(mkdtempSync(join(tmpdir(), 'ipa-cli-')), 'count-loaded.cjs');
    writeFileSync(
      counter,
      `process.on('exit', () => process.stderr.write('\\nloaded ' + Object.keys(require.cache).filter((p) => /dist[\\\\/]src[\\\\/](modules[\\\\/]|bootstrap)/.test(p)).length + '\\n'));`,
    );
    const loaded = (...args: string[]) => {
      const res = spawnSync(process.execPath, ['--require', counter, CLI, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...sharedCliEnv(), LOG_LEVEL: 'warn' },
        encoding: 'utf8',
      });
      return Number(/loaded (\d+)/.exec(res.stderr)?.[1]);
    };
    expect(loaded('--help')).toBe(0);
    expect(loaded('org:explode')).toBe(0);
    expect(loaded('webhooks:trigger', 'invoice.exploded', '--api-key', 'sk_test_x', '--api-url', 'http://127.0.0.1:1')).toBe(0);
    expect(loaded('org:list')).toBeGreaterThan(100);
  });

  it("loads no chain family's client library for a database command with no network to watch (viem and Solana's load at first use)", () => {
    // Counts, as the process exits, the modules of the service and of each chain library it loaded.
    const counter = join(mkdtempSync(join(tmpdir(), 'ipa-cli-')), 'count-libraries.cjs');
    writeFileSync(
      counter,
      `process.on('exit', () => { const paths = Object.keys(require.cache).map((p) => p.split('\\\\').join('/'));
        const count = (re) => paths.filter((p) => re.test(p)).length;
        process.stderr.write('\\nloaded ' + JSON.stringify({ service: count(/dist\\/src\\/modules\\//), viem: count(/node_modules\\/viem\\//), solana: count(/node_modules\\/@solana(-program)?\\//) }) + '\\n'); });`,
    );
    const res = spawnSync(process.execPath, ['--require', counter, CLI, 'org:list'], {
      cwd: ROOT,
      env: { ...process.env, ...sharedCliEnv(), LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(res.status).toBe(0);
    const loaded = JSON.parse(/loaded (\{.*\})/.exec(res.stderr)?.[1] ?? 'null');
    // the whole application, the Solana and EVM rails' own code included, but none of their libraries
    expect(loaded.service).toBeGreaterThan(100);
    expect(loaded).toMatchObject({ viem: 0, solana: 0 });
  });

  it('org:list lists organizations as JSON, with their active keys counted and no key shown', async () => {
    const org = await cliJson('org:create', '--name', 'Listed Co');
    await cliJson('key:create', '--org', org.organization_id, '--mode', 'live', '--read-only');
    await cliJson('key:revoke', '--key', org.test_key);
    const res = await cli('org:list');
    expect(res.code).toBe(0);
    const list = JSON.parse(res.stdout) as Array<Record<string, unknown>>;
    const entry = list.find((o) => o.organization_id === org.organization_id);
    expect(entry).toEqual({
      organization_id: org.organization_id,
      name: 'Listed Co',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      active_test_keys: 0,
      active_live_keys: 2,
    });
    expect(res.stdout).not.toMatch(/sk_(test|live)_/);
  });

  it('org:create with a malformed --owner-email refuses before creating anything (its keys would never be shown)', async () => {
    const name = `Half ${process.pid}-${Date.now()}`;
    const res = await cli('org:create', '--name', name, '--owner-email', 'owner.example.com');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('email');
    const list = JSON.parse((await cli('org:list')).stdout) as Array<{ name: string }>;
    expect(list.filter((o) => o.name === name)).toEqual([]);
  });
});
