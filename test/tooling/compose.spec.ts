import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/shared/config/app-config';
import { loadFilesConfig } from '../../src/modules/files/files.config';
import { parseChainsConfig } from '../../src/modules/rails/domain/chains-config';
import { railAdapters } from '../../src/modules/rails/rail-adapters';
import { liveRailsFinding, loadRailsConfig } from '../../src/modules/rails/rails.config';
import { PROVIDER_CATALOG } from '../../src/modules/providers/domain/catalog';
import { Compose, environmentOf, interpolate, isApp, loadCompose, OPERATOR_ENV, Service } from './compose-file';
import { knownVariables, ROOT } from './env-scan';

/**
 * docker-compose.yml (and what it uses: the Dockerfile, deploy/Caddyfile) describes the deployment
 * docs/production.md recommends. No Docker engine runs in CI, so this reads the files and fails when:
 * - a service has no health check;
 * - there are not two replicas of the service (the services built from this repository), or one
 *   publishes a port (only the proxy may);
 * - a replica sets a variable the service does not read (one missing from .env.example), or its
 *   settings do not start the service in production mode (they are loaded by the service's own
 *   config loader: PUBLIC_BASE_URL, SECRETS_KEY and every value's format), or it has no
 *   DATABASE_URL / REDIS_URL naming a service of the file;
 * - the proxy does not set X-Forwarded-Proto and X-Forwarded-For for the replicas, or lets a client
 *   choose them, or the replicas' TRUST_PROXY names anything but the proxy's fixed address;
 * - the Dockerfile sets an unknown variable, exposes another port, or copies a file that is gone.
 */
const run = promisify(execFile);

/** Variables a replica may set that are Node's, not the service's settings. */
const NODE_VARIABLES = new Set(['NODE_OPTIONS']);

type Read = (path: string) => string | null;
const readRepoFile: Read = (path) => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : null);

/** A docker compose duration (1m30s, 25s, 500ms) in milliseconds. */
function durationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of String(text).matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g))
    total += Number(amount) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 }[unit]!;
  return total;
}

/** The lines of a Caddyfile without comments. */
function caddyLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean);
}

function proxyProblems(name: string, proxy: Service, apps: [string, Service][], read: Read): string[] {
  const problems: string[] = [];
  const image = String(proxy.image ?? '');
  const tag = /^caddy(?::(.+))?$/.exec(image);
  if (!tag) {
    return [`${name} (${image || 'no image'}) is not Caddy: teach test/tooling/compose.spec.ts how this proxy sets X-Forwarded-Proto and X-Forwarded-For`];
  }
  // Caddy sets X-Forwarded-For/-Proto/-Host from the connection and ignores clients' own since 2.5.
  const version = /^(\d+)(?:\.(\d+))?/.exec(tag[1] ?? 'latest');
  if (version && (Number(version[1]) < 2 || (Number(version[1]) === 2 && version[2] !== undefined && Number(version[2]) < 5))) {
    problems.push(`${name} runs ${image}: Caddy before 2.5 passes clients' X-Forwarded-* headers on; use caddy:2 (2.5 or later)`);
  }
  const mount = ((proxy.volumes ?? []) as unknown[])
    .map((v) => (typeof v === 'string' ? v.split(':') : [(v as any).source, (v as any).target]))
    .find(([, target]) => target === '/etc/caddy/Caddyfile');
  if (!mount) return [...problems, `${name} mounts no Caddyfile at /etc/caddy/Caddyfile`];
  const path = String(mount[0]).replace(/^\.\//, '');
  const text = isAbsolute(path) ? null : read(path);
  if (text === null) return [...problems, `${name} mounts ${mount[0]}, which is not a file of this repository`];

  const lines = caddyLines(text);
  for (const line of lines) {
    if (/^trusted_proxies\b/.test(line)) {
      problems.push(`${path}: "${line}" lets the listed clients choose X-Forwarded-For/-Proto; the replicas must only see what Caddy saw`);
    }
    if (/^header_up\s+[-+]?X-Forwarded-(For|Proto)\b/i.test(line)) {
      problems.push(`${path}: "${line}" changes the X-Forwarded-For/-Proto that Caddy sets from the connection`);
    }
  }
  // /admin is for operators on the private network (docs/production.md, "Operator surface").
  const operatorMatcher = lines
    .map((l) => /^@(\S+)\s+path\s+(.+)$/.exec(l))
    .find((m) => m && m[2].split(/\s+/).includes('/admin') && m[2].split(/\s+/).includes('/admin/*'));
  if (!operatorMatcher || !lines.includes(`respond @${operatorMatcher[1]} 404`))
    problems.push(`${path}: /admin is forwarded to the replicas; answer it at the proxy (@operator path /admin /admin/* and respond @operator 404)`);
  const upstreams = lines.filter((l) => /^reverse_proxy\b/.test(l)).flatMap((l) => l.replace(/\{$/, '').trim().split(/\s+/).slice(1));
  if (!upstreams.length) problems.push(`${path} has no reverse_proxy`);
  for (const [appName, app] of apps) {
    const port = environmentOf(app).PORT ?? '3000';
    if (!upstreams.some((u) => u.replace(/^https?:\/\//, '') === `${appName}:${port}`))
      problems.push(`${path}: reverse_proxy does not send requests to ${appName}:${port}`);
  }
  // The site Caddy serves is the replicas' PUBLIC_BASE_URL.
  const site = lines.find((l) => /\{$/.test(l) && l !== '{' && !/^[a-z_]+\s/.test(l));
  if (site !== '{$PUBLIC_BASE_URL} {') problems.push(`${path}: the site address should be {$PUBLIC_BASE_URL}, found "${site ?? 'none'}"`);
  const served = environmentOf(proxy).PUBLIC_BASE_URL;
  for (const [appName, app] of apps) {
    if (served !== environmentOf(app).PUBLIC_BASE_URL)
      problems.push(`${name} serves PUBLIC_BASE_URL ${served} but ${appName} has ${environmentOf(app).PUBLIC_BASE_URL ?? '(unset)'}`);
  }
  return problems;
}

/** Everything wrong with a compose document (parsed with YAML merge keys), reading the files it names with `read`. */
export function composeProblems(compose: Compose, read: Read = readRepoFile): string[] {
  const problems: string[] = [];
  const services = Object.entries(compose.services ?? {});
  const known = knownVariables();

  for (const [name, service] of services) {
    const test = service.healthcheck?.test;
    if (!test || service.healthcheck.disable || (Array.isArray(test) && test[0] === 'NONE')) problems.push(`${name} has no health check`);
  }

  const apps = services.filter(([, s]) => isApp(s));
  if (apps.length < 2) problems.push(`${apps.length} replica(s) of the service (built from .): the deployment runs two behind the proxy`);
  for (const [name, app] of apps) {
    if (app.ports?.length) problems.push(`${name} publishes ports ${JSON.stringify(app.ports)}: only the proxy may, or clients bypass TLS`);
    if (app.env_file) problems.push(`${name} reads env_file: set its variables under environment so they can be checked`);
    const raw = environmentOf(app);
    for (const variable of Object.keys(raw)) {
      if (!known.has(variable) && !NODE_VARIABLES.has(variable))
        problems.push(`${name} sets ${variable}, which the service does not read (it is not in .env.example)`);
    }
    const env: Record<string, string> = {};
    for (const [variable, value] of Object.entries(raw)) {
      if (value === null) continue;
      try {
        env[variable] = interpolate(value, OPERATOR_ENV);
      } catch (error) {
        problems.push(`${name}: ${variable}: ${(error as Error).message}`);
      }
    }
    if (env.NODE_ENV !== 'production') problems.push(`${name} sets NODE_ENV=${env.NODE_ENV ?? '(unset)'}: replicas run in production mode`);
    for (const load of [() => loadConfig(env, 'service'), () => loadFilesConfig(env)]) {
      try {
        load();
      } catch (error) {
        problems.push(`${name} would not start: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`);
      }
    }
    for (const [variable, scheme] of [
      ['DATABASE_URL', 'postgres'],
      ['REDIS_URL', 'redis'],
    ]) {
      const host = env[variable] ? /^[a-z]+:\/\/(?:[^@/]*@)?([^:/?]+)/.exec(env[variable])?.[1] : undefined;
      if (!host || !compose.services[host])
        problems.push(`${name}: ${variable} must name the ${scheme} service of this file (found ${env[variable] ?? 'nothing'})`);
    }
    const grace = durationMs(String(app.stop_grace_period ?? '10s'));
    const needed = Number(env.SHUTDOWN_TIMEOUT_MS ?? 10_000) + Number(env.WEBHOOK_TIMEOUT_MS ?? 10_000);
    if (grace <= needed) problems.push(`${name}: stop_grace_period (${grace} ms) must exceed SHUTDOWN_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS (${needed} ms)`);
  }

  const proxies = services.filter(([, s]) => !isApp(s) && s.ports?.length);
  if (proxies.length !== 1) {
    problems.push(`${proxies.length} services publish ports (${proxies.map(([n]) => n).join(', ')}): exactly one, the TLS proxy, should`);
    return problems;
  }
  const [proxyName, proxy] = proxies[0];
  problems.push(...proxyProblems(proxyName, proxy, apps, read));

  // The replicas believe X-Forwarded-* from the proxy's fixed address, and from nothing else.
  const proxyNetworks: Record<string, { ipv4_address?: string } | null> = Array.isArray(proxy.networks) ? {} : (proxy.networks ?? {});
  const addresses = Object.entries(proxyNetworks)
    .filter(([, n]) => n?.ipv4_address)
    .map(([network, n]) => ({ network, address: String(n!.ipv4_address) }));
  if (!addresses.length) problems.push(`${proxyName} has no fixed ipv4_address: TRUST_PROXY has nothing exact to name`);
  for (const [name, app] of apps) {
    const trusted = (environmentOf(app).TRUST_PROXY ?? '').split(',').map((t) => t.trim());
    const networks: string[] = Array.isArray(app.networks) ? app.networks : Object.keys((app.networks ?? {}) as object);
    const reachable = addresses.filter((a) => networks.includes(a.network)).map((a) => a.address);
    if (!reachable.length || trusted.some((t) => !reachable.includes(t))) {
      problems.push(
        `${name}: TRUST_PROXY is ${trusted.join(',')}; it must name only ${proxyName}'s fixed address on a network they share (${reachable.join(', ') || 'none'})`,
      );
    }
  }

  problems.push(...dockerfileProblems(read('Dockerfile') ?? '', apps, read));
  problems.push(...dockerignoreProblems(read('.dockerignore')));
  return problems;
}

/** The Dockerfile the replicas are built from: its final stage's variables, port, command and copied files. */
export function dockerfileProblems(text: string, apps: [string, Service][], read: Read = readRepoFile): string[] {
  const problems: string[] = [];
  const known = knownVariables();
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const finalStage = lines.slice(lines.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true));
  for (const line of finalStage) {
    const env = /^ENV\s+(.*)$/i.exec(line);
    if (!env) continue;
    const names = env[1].includes('=') ? [...env[1].matchAll(/([A-Za-z_]\w*)=/g)].map((m) => m[1]) : [env[1].split(/\s+/)[0]];
    for (const variable of names)
      if (!known.has(variable) && !NODE_VARIABLES.has(variable)) problems.push(`Dockerfile sets ${variable}, which the service does not read`);
  }
  const exposed = finalStage.flatMap((l) => /^EXPOSE\s+(.*)$/i.exec(l)?.[1].split(/\s+/) ?? []);
  for (const [name, app] of apps) {
    const port = environmentOf(app).PORT ?? '3000';
    if (!exposed.includes(port)) problems.push(`Dockerfile exposes ${exposed.join(', ') || 'nothing'}, but ${name} listens on ${port}`);
  }
  const command = finalStage.map((l) => /^CMD\s+(.*)$/i.exec(l)?.[1]).find(Boolean) ?? '';
  const script = /dist\/(\S+?)\.js/.exec(command)?.[1];
  if (!script || read(`${script}.ts`) === null) problems.push(`Dockerfile's CMD (${command}) does not start a script built from this repository`);
  for (const line of lines) {
    const copy = /^COPY\s+(?!--from)(.*)$/i.exec(line);
    if (!copy) continue;
    const sources = copy[1]
      .split(/\s+/)
      .filter((p) => !p.startsWith('--'))
      .slice(0, -1);
    for (const source of sources) if (!existsSync(join(ROOT, source))) problems.push(`Dockerfile copies ${source}, which is not in the repository`);
  }
  const user = finalStage
    .map((l) => /^USER\s+(\S+)/i.exec(l)?.[1])
    .filter(Boolean)
    .pop();
  if (!user || user === 'root' || user === '0' || user.startsWith('0:'))
    problems.push('Dockerfile runs the service as root (its final stage needs a USER other than root)');
  return problems;
}

/** What the build context must leave out: installed packages, builds, local data (a live database cluster), secrets, history. */
const CONTEXT_EXCLUDED = ['node_modules', 'dist', 'data', '.env', '.git'];

export function dockerignoreProblems(text: string | null): string[] {
  if (text === null) return ['.dockerignore is missing: the build context would carry node_modules, data/ and .env'];
  const patterns = new Set(
    text
      .split('\n')
      .map((l) => l.trim().replace(/^\/+|\/+$/g, ''))
      .filter((l) => l && !l.startsWith('#')),
  );
  return CONTEXT_EXCLUDED.filter((path) => !patterns.has(path)).map((path) => `.dockerignore does not leave out ${path}`);
}

describe('docker-compose.yml', () => {
  it('describes the deployment: no problem found', () => {
    expect(composeProblems(loadCompose())).toEqual([]);
  });

  it('runs two replicas, in production mode, on PostgreSQL and Redis, behind Caddy', () => {
    const services = loadCompose().services;
    expect(Object.keys(services).sort()).toEqual(['app-1', 'app-2', 'db', 'proxy', 'redis']);
    expect(services.db.image).toMatch(/^postgres:/);
    expect(services.redis.image).toMatch(/^redis:/);
    expect(services.proxy.image).toMatch(/^caddy:/);
    for (const app of [services['app-1'], services['app-2']])
      expect(app.environment).toMatchObject({ NODE_ENV: 'production', REDIS_URL: 'redis://redis:6379' });
  });

  /** Each change breaks one rule; the check must name it. */
  const broken: [string, (compose: Compose) => void, RegExp][] = [
    [
      'an unknown variable',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, RATE_LIMIT_PER_SECOND: '10' }),
      /^app-1 sets RATE_LIMIT_PER_SECOND, which the service does not read/,
    ],
    ['a service without a health check', (c) => delete c.services.redis.healthcheck, /^redis has no health check$/],
    ['a disabled health check', (c) => (c.services['app-2'] = { ...c.services['app-2'], healthcheck: { disable: true } }), /^app-2 has no health check$/],
    [
      'a replica without SECRETS_KEY',
      (c) => (c.services['app-2'].environment = { ...c.services['app-2'].environment, SECRETS_KEY: undefined }),
      /^app-2 would not start: .*SECRETS_KEY is required/,
    ],
    [
      'a replica without PUBLIC_BASE_URL',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, PUBLIC_BASE_URL: undefined }),
      /^app-1 would not start: .*PUBLIC_BASE_URL is required/,
    ],
    [
      'a malformed value',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, REDIS_URL: 'redis:6379' }),
      /^app-1 would not start: .*REDIS_URL/,
    ],
    [
      'development mode',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, NODE_ENV: 'development' }),
      /^app-1 sets NODE_ENV=development/,
    ],
    [
      'no Redis',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, REDIS_URL: undefined }),
      /^app-1: REDIS_URL must name the redis service/,
    ],
    ['one replica', (c) => delete c.services['app-2'], /^1 replica\(s\) of the service/],
    [
      'a replica publishing its port',
      (c) => (c.services['app-1'] = { ...c.services['app-1'], ports: ['3000:3000'] }),
      /^app-1 publishes ports \["3000:3000"\]: only the proxy may/,
    ],
    [
      'TRUST_PROXY trusting the whole network',
      (c) => (c.services['app-1'].environment = { ...c.services['app-1'].environment, TRUST_PROXY: '172.30.80.0/24' }),
      /^app-1: TRUST_PROXY is 172\.30\.80\.0\/24/,
    ],
    ['a proxy without a fixed address', (c) => (c.services.proxy = { ...c.services.proxy, networks: ['backend'] }), /^proxy has no fixed ipv4_address/],
    ['another proxy', (c) => (c.services.proxy = { ...c.services.proxy, image: 'nginx:1' }), /^proxy \(nginx:1\) is not Caddy/],
    ['an old Caddy', (c) => (c.services.proxy = { ...c.services.proxy, image: 'caddy:2.4' }), /^proxy runs caddy:2\.4/],
    [
      'a short grace period',
      (c) => (c.services['app-1'] = { ...c.services['app-1'], stop_grace_period: '10s' }),
      /^app-1: stop_grace_period \(10000 ms\) must exceed/,
    ],
  ];
  it.each(broken)('fails on %s', (_what, change, expected) => {
    const compose = loadCompose();
    change(compose);
    for (const s of Object.values(compose.services)) if (s.environment) s.environment = JSON.parse(JSON.stringify(s.environment));
    const problems = composeProblems(compose);
    expect(problems.some((p) => expected.test(p))).toBe(true);
  });

  const caddyfile = readFileSync(join(ROOT, 'deploy', 'Caddyfile'), 'utf8');
  const brokenProxy: [string, string, RegExp][] = [
    [
      'removes X-Forwarded-Proto',
      caddyfile.replace('lb_policy round_robin', 'lb_policy round_robin\n\t\theader_up -X-Forwarded-Proto'),
      /header_up -X-Forwarded-Proto" changes/,
    ],
    [
      'rewrites X-Forwarded-For',
      caddyfile.replace('lb_policy round_robin', 'lb_policy round_robin\n\t\theader_up X-Forwarded-For {http.request.header.X-Real-IP}'),
      /header_up X-Forwarded-For .* changes/,
    ],
    [
      'believes clients',
      caddyfile.replace('lb_policy round_robin', 'lb_policy round_robin\n\t\ttrusted_proxies private_ranges'),
      /"trusted_proxies private_ranges" lets the listed clients choose/,
    ],
    [
      'forgets a replica',
      caddyfile.replace('reverse_proxy app-1:3000 app-2:3000', 'reverse_proxy app-1:3000'),
      /reverse_proxy does not send requests to app-2:3000/,
    ],
    ['serves another address', caddyfile.replace('{$PUBLIC_BASE_URL} {', 'pay.example.org {'), /the site address should be \{\$PUBLIC_BASE_URL\}/],
    ['forwards /admin', caddyfile.replace('respond @operator 404', ''), /\/admin is forwarded to the replicas/],
    ['covers only /admin/*', caddyfile.replace('@operator path /admin /admin/*', '@operator path /admin/*'), /\/admin is forwarded to the replicas/],
  ];
  it.each(brokenProxy)('fails when the Caddyfile %s', (_what, text, expected) => {
    expect(caddyfile).not.toBe(text);
    const problems = composeProblems(loadCompose(), (path) => (path === 'deploy/Caddyfile' ? text : readRepoFile(path)));
    expect(problems.some((p) => expected.test(p))).toBe(true);
  });

  it('fails on a Dockerfile that sets an unknown variable, exposes another port or copies a missing file', () => {
    const apps = Object.entries(loadCompose().services).filter(([, s]) => isApp(s));
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfileProblems(dockerfile, apps)).toEqual([]);
    const broken = dockerfile
      .replace('ENV HOST=0.0.0.0', 'ENV HOST=0.0.0.0 LISTEN_ADDRESS=0.0.0.0')
      .replace('EXPOSE 3000', 'EXPOSE 8080')
      .replace('COPY scripts ./scripts', 'COPY tools ./tools');
    expect(dockerfileProblems(broken, apps)).toEqual([
      'Dockerfile sets LISTEN_ADDRESS, which the service does not read',
      'Dockerfile exposes 8080, but app-1 listens on 3000',
      'Dockerfile exposes 8080, but app-2 listens on 3000',
      'Dockerfile copies tools, which is not in the repository',
    ]);
  });

  it('mounts a CHAINS_FILE of this repository that the service accepts, and names the rate sources', () => {
    for (const [name, app] of Object.entries(loadCompose().services).filter(([, s]) => isApp(s))) {
      const env = environmentOf(app);
      expect(interpolate(env.RATE_SOURCES ?? '', {})).toBe('coinbase,kraken,coingecko');
      const mount = ((app.volumes ?? []) as string[]).map((v) => v.split(':')).find(([, target]) => target === env.CHAINS_FILE);
      expect([name, mount?.[0]]).toEqual([name, './deploy/chains.json']);
      expect(() => parseChainsConfig(JSON.parse(readRepoFile('deploy/chains.json')!), railAdapters(PROVIDER_CATALOG))).not.toThrow();
    }
  });

  it('refuses to start the replicas with the shipped chains file (no live network) unless the operator sets ALLOW_NO_LIVE_RAILS=true', () => {
    for (const [name, app] of Object.entries(loadCompose().services).filter(([, s]) => isApp(s))) {
      const mounts = ((app.volumes ?? []) as string[]).map((v) => v.split(':'));
      const envAs = (operator: Record<string, string>) => {
        const env: Record<string, string> = {};
        for (const [variable, value] of Object.entries(environmentOf(app))) if (value !== null) env[variable] = interpolate(value, operator);
        const mount = mounts.find(([source, target]) => target === env.CHAINS_FILE && source.startsWith('./'));
        if (mount) env.CHAINS_FILE = join(ROOT, mount[0]);
        return env;
      };
      const adapters = railAdapters(PROVIDER_CATALOG);
      const refused = liveRailsFinding(loadRailsConfig(envAs(OPERATOR_ENV), adapters), true);
      expect([name, refused?.refuse, refused?.message]).toEqual([name, true, expect.stringContaining('live mode can take no payment')]);
      const optedOut = liveRailsFinding(loadRailsConfig(envAs({ ...OPERATOR_ENV, ALLOW_NO_LIVE_RAILS: 'true' }), adapters), true);
      expect([name, optedOut?.refuse]).toEqual([name, false]);
    }
  });

  it('fails on a Dockerfile whose service runs as root', () => {
    const apps = Object.entries(loadCompose().services).filter(([, s]) => isApp(s));
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const rootProblem = ['Dockerfile runs the service as root (its final stage needs a USER other than root)'];
    expect(dockerfileProblems(dockerfile.replace(/^USER .*$/m, ''), apps)).toEqual(rootProblem);
    expect(dockerfileProblems(dockerfile.replace(/^USER .*$/m, 'USER root'), apps)).toEqual(rootProblem);
  });

  it('fails when .dockerignore is missing or lets local data, packages or secrets into the build context', () => {
    const text = readRepoFile('.dockerignore');
    expect(dockerignoreProblems(text)).toEqual([]);
    expect(dockerignoreProblems(null)).toEqual(['.dockerignore is missing: the build context would carry node_modules, data/ and .env']);
    expect(dockerignoreProblems(text!.replace(/^data$/m, '').replace(/^\.env$/m, ''))).toEqual([
      '.dockerignore does not leave out data',
      '.dockerignore does not leave out .env',
    ]);
  });

  it('interpolates as docker compose does, and stops on a required variable that is not set', () => {
    const env = { A: 'a', EMPTY: '' };
    expect(interpolate('x${A}y$A$$A', env)).toBe('xaya$A');
    expect(interpolate('${EMPTY:-d}|${EMPTY-d}|${NONE-d}|${A:+set}|${NONE:+set}', env)).toBe('d||d|set|');
    expect(() => interpolate('${EMPTY:?say it}', env)).toThrow('EMPTY is required: say it');
    expect(interpolate('${EMPTY?say it}', env)).toBe('');
  });

  it("the replicas' health check command passes against a running service and fails without one", async () => {
    const test: string[] = loadCompose().services['app-1'].healthcheck.test;
    expect(test.slice(0, 2)).toEqual(['CMD', 'node']);
    const port = new URL(process.env.TEST_BASE_URL!).port;
    const probe = (env: Record<string, string>) =>
      run(process.execPath, test.slice(2), { env: { PATH: process.env.PATH, ...env } }).then(
        () => 0,
        (e: { code: number }) => e.code,
      );
    expect(await probe({ PORT: port })).toBe(0);
    expect(await probe({ PORT: '1' })).toBe(1);
  });
});
