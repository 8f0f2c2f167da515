import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createDatabase, dropDatabase, withClient } from '../../support/pg';
import { linesWith, ROOT, runUntilExit, RunningServer, startServer } from '../../support/server';
import { environmentOf, interpolate, isApp, loadCompose, OPERATOR_ENV, Service } from '../../tooling/compose-file';
import { embeddedUrl } from '../../support/embedded';

const run = promisify(execFile);
const pgServer = process.env.TEST_PG_SERVER_URL;

/**
 * The replicas of docker-compose.yml, started the way compose starts them: both at once, on one empty
 * database, with the file's environment (an operator's PUBLIC_BASE_URL and SECRETS_KEY filled in).
 * Only what a container changes is changed: the database is a fresh test database, the listening
 * address is loopback on free ports, and REDIS_URL is left out (no Redis here; the rate limits count
 * per process without it, which these checks do not touch). Without a PostgreSQL server the database
 * is an embedded one served (and migrated) by a third process, as in rolling-restart.e2e-spec.ts.
 */
/** A replica's environment as compose gives it, from the operator's values; a bind-mounted file of this repository (CHAINS_FILE) read where it lies here. */
function replicaEnv(app: Service, operator: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { LOG_LEVEL: 'info', ADMIN_API_TOKEN: undefined };
  for (const [name, value] of Object.entries(environmentOf(app))) if (value !== null) env[name] = interpolate(value, operator);
  for (const volume of (app.volumes ?? []) as string[]) {
    const [source, target] = volume.split(':');
    if (!source.startsWith('./')) continue;
    for (const [name, value] of Object.entries(env)) if (value === target) env[name] = join(ROOT, source);
  }
  return env;
}

describe('the replicas of docker-compose.yml', () => {
  const compose = loadCompose();
  const apps = Object.entries(compose.services).filter(([, s]) => isApp(s));
  let databaseUrl: string;
  let owner: RunningServer | undefined;
  let replicas: RunningServer[] = [];

  beforeAll(async () => {
    // empty, not a copy of the migrated template: what is checked here is the migrations' run itself
    if (pgServer) databaseUrl = await createDatabase(pgServer, 'ipa_test', { empty: true });
    else {
      const dataDir = mkdtempSync(join(tmpdir(), 'ipa-compose-'));
      owner = await startServer({ dataDir });
      databaseUrl = embeddedUrl(dataDir);
    }
    // Both at once, as compose starts them once the database is healthy.
    const started = await Promise.allSettled(
      apps.map(([, app]) => {
        // deploy/chains.json ships with no live network, which production refuses unless the operator opts out
        // (the last test below checks that refusal): this operator tries the file before going live.
        const env = replicaEnv(app, { ...OPERATOR_ENV, ALLOW_NO_LIVE_RAILS: 'true' });
        // PORT is the free port startServer picks; the rest is what a container would differ in.
        delete env.PORT;
        return startServer({ databaseUrl, env: { ...env, DATABASE_URL: undefined, REDIS_URL: undefined, HOST: '127.0.0.1' } });
      }),
    );
    replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await owner?.stop();
    if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  it('start together in production mode; one applies the migrations, once, while the other waits', async () => {
    expect(replicas).toHaveLength(2);
    for (const replica of replicas) {
      expect(linesWith(replica, 'NODE_ENV is not production')).toEqual([]);
      const ready = await fetch(`${replica.baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { env: string }).env).toBe('production');
    }
    // On an empty database one replica applies them all; the other waits on the lock and finds none left.
    const applied = replicas.map((r) => linesWith(r, '"migrations":[').length);
    expect(applied.sort()).toEqual(pgServer ? [0, 1] : [0, 0]);
    const migrations = readdirSync(join(ROOT, 'migrations'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.split(/[\\/]/).includes('support'),
    );
    expect(migrations.length).toBeGreaterThan(30);
    const rows = await withClient(databaseUrl, (c) =>
      c.query<{ name: string; n: string }>('SELECT name, count(*)::text AS n FROM schema_migrations GROUP BY name'),
    );
    expect(rows.rows).toHaveLength(migrations.length);
    expect(rows.rows.every((r) => r.n === '1')).toBe(true);
  });

  it("pass the file's health check command over plain HTTP", async () => {
    const test: string[] = apps[0][1].healthcheck.test;
    for (const replica of replicas) {
      await expect(run(process.execPath, test.slice(2), { env: { PATH: process.env.PATH, PORT: String(replica.port) } })).resolves.toBeDefined();
    }
  });

  it('refuse to start with deploy/chains.json as shipped when the operator does not opt out, saying what to do', async () => {
    // As an operator who runs `docker compose up -d` before adding a live network: ALLOW_NO_LIVE_RAILS is not set.
    const env = replicaEnv(apps[0][1], OPERATOR_ENV);
    expect([env.NODE_ENV, env.ALLOW_NO_LIVE_RAILS, env.CHAINS_FILE]).toEqual(['production', 'false', join(ROOT, 'deploy', 'chains.json')]);
    const shipped = JSON.parse(readFileSync(join(ROOT, 'deploy', 'chains.json'), 'utf8')) as { live?: object };
    expect(Object.keys(shipped.live ?? {})).toEqual([]);
    const defined = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const { code, output } = await runUntilExit({ ...defined, ADMIN_API_TOKEN: '', PORT: '0', HOST: '127.0.0.1', REDIS_URL: '' });
    expect(code).toBe(1);
    const refusal = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; event?: string; msg: string })
      .find((line) => line.event === 'no_live_rails');
    expect(refusal?.level).toBe(50);
    expect(refusal?.msg).toContain(`CHAINS_FILE (${join(ROOT, 'deploy', 'chains.json')}) names no network in its "live" section`);
    expect(refusal?.msg).toContain('docs/going-live.md');
    expect(refusal?.msg).toContain('ALLOW_NO_LIVE_RAILS=true');
    expect(output).not.toContain('listening');
  });

  it('refuse plain HTTP elsewhere, and believe X-Forwarded-Proto only from the proxy address (not from loopback)', async () => {
    for (const replica of replicas) {
      const direct = await fetch(`${replica.baseUrl}/auth/debug_token`, { headers: { 'x-forwarded-proto': 'https', authorization: 'sk_test_x' } });
      expect(direct.status).toBe(400);
      expect(((await direct.json()) as { code: string }).code).toBe('https_required');
    }
  });
});
