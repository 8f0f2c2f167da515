#!/usr/bin/env node
// What one service process holds after its start and after `--creates` invoice creates, in figures a shared
// machine does not move much: CommonJS modules loaded, V8's heap in use after a full GC, and the resident set
// (the time to /health/ready is printed too, but on a loaded machine it says little).
//
//   npm run build && node bench/start-footprint.js [--creates 200] [--label before]
//   (DATABASE_URL: the PostgreSQL server to create its database on; default postgres://postgres@127.0.0.1:5432/postgres)
//
// The service runs with `--expose-gc --require bench/footprint-preload.cjs`: on SIGUSR2 it collects garbage and
// writes its figures to a file. One worker (WEB_CONCURRENCY=1), test mode, no chains. Prints one JSON line and
// appends it to bench/results/start-footprint.jsonl.
'use strict';
const { spawn } = require('node:child_process');
const { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { Client } = require('pg');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const root = resolve(__dirname, '..');
const CREATES = Number(opt('creates', '200'));
const LABEL = opt('label', '');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN = 'footprint-bench-admin-token-0123456789';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function main() {
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  const dbName = `ipa_footprint_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  const dir = mkdtempSync(join(tmpdir(), 'ipa-footprint-'));
  const file = join(dir, 'figures.json');
  let child = null;
  try {
    const port = await freePort();
    const started = Date.now();
    child = spawn(process.execPath, ['--expose-gc', '--require', join(__dirname, 'footprint-preload.cjs'), join(root, 'dist', 'src', 'main.js')], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: dbUrl.toString(),
        ADMIN_API_TOKEN: ADMIN,
        DEMO_ORGANIZATION: 'false',
        WEB_CONCURRENCY: '1',
        RATE_LIMIT_TEST: '100000',
        FOOTPRINT_FILE: file,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    for (;;) {
      const ok = await fetch(`${base}/health/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() - started > 120_000) throw new Error('the service did not get ready');
      await sleep(20);
    }
    const readyMs = Date.now() - started;
    const figures = async () => {
      rmSync(file, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(25);
      await sleep(25);
      const f = JSON.parse(readFileSync(file, 'utf8'));
      if (f.list) appendFileSync(join(root, 'bench', 'results', 'start-footprint-modules.txt'), `${LABEL}\n${f.list.join('\n')}\n`);
      delete f.list;
      return Object.fromEntries(Object.entries(f).map(([k, v]) => [k, Math.round(v * 10) / 10]));
    };
    await sleep(2000); // the preflight after listen, the first worker passes
    const afterStart = await figures();
    const post = async (path, body, key) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : { 'x-admin-token': ADMIN }) },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()).data;
    };
    const org = await post('/admin/organizations', { name: 'Footprint bench' });
    let next = 0;
    const client = async () => {
      while (next < CREATES) {
        next++;
        await post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }, org.test_key);
      }
    };
    await Promise.all(Array.from({ length: 4 }, client));
    const rssAfterCreates = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
    const afterCreates = await figures();
    const line = JSON.stringify({
      label: LABEL,
      at: new Date().toISOString(),
      ready_ms: readyMs,
      after_start: afterStart,
      creates: CREATES,
      rss_mb_after_creates_before_gc: Math.round(rssAfterCreates * 10) / 10,
      after_creates: afterCreates,
    });
    console.log(line);
    appendFileSync(join(root, 'bench', 'results', 'start-footprint.jsonl'), `${line}\n`);
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      for (let i = 0; i < 100 && child.exitCode === null; i++) await sleep(50);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
