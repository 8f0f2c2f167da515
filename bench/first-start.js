#!/usr/bin/env node
// First start as a new user meets it: in a fresh clone (after `npm ci`), `npm start` with no DATABASE_URL
// (the embedded database) until /health/ready answers 200, then a second start on the same data; the
// memory of the service's process tree after the start and after 1,000 invoice creates from 8 clients.
//
//   node bench/first-start.js [--clone DIR]   (default: a fresh `git clone` of this repository in /tmp, then npm ci)
//
// Memory is read from /proc: resident sets summed over the tree (shared pages counted once per process)
// and proportional sets summed (each shared page split between the processes that map it).
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { chmodSync, mkdtempSync, readFileSync, readdirSync, existsSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { tmpdir } = require('node:os');

const args = process.argv.slice(2);
const cloneArg = args.indexOf('--clone');
const root = resolve(__dirname, '..');

function sh(cmd, argv, cwd) {
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

function children(pid) {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

function tree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
  return all;
}

/** The service's own process under `npm start`'s (node dist/src/main.js), whose children are the database server's processes. */
function serviceProcess(pid) {
  return (
    tree(pid).find((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('dist/src/main.js');
      } catch {
        return false;
      }
    }) ?? pid
  );
}

/** Memory of the service with its database server, and of everything `npm start` runs (npm itself included). */
function memory(pid) {
  return { service_and_database: treeMemory(serviceProcess(pid)), with_npm: treeMemory(pid) };
}

/** Resident and proportional set sizes of a process tree, in MB. */
function treeMemory(pid) {
  let rss = 0;
  let pss = 0;
  for (const p of tree(pid)) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return { rss_mb: Math.round(rss / 1024), pss_mb: Math.round(pss / 1024), processes: tree(pid).length };
}

async function ready(port, deadline) {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.status === 200) return true;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** `npm start` in `dir` (PORT given, no DATABASE_URL); resolves when /health/ready is 200, with the seconds it took. */
async function start(dir, port) {
  // Rate limits off, so the 1,000 creates are measured rather than refused (test keys get 25 a second).
  const env = { ...process.env, PORT: String(port), RATE_LIMIT_ENABLED: 'false' };
  delete env.DATABASE_URL;
  const begun = Date.now();
  const child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  if (!(await ready(port, Date.now() + 120_000))) throw new Error(`not ready in 120 s:\n${log}`);
  return { child, seconds: (Date.now() - begun) / 1000, log: () => log };
}

async function stop(child) {
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

async function creates(port, key, total, clients) {
  let next = 0;
  let failed = 0;
  const one = async () => {
    while (next < total) {
      next++;
      const res = await fetch(`http://127.0.0.1:${port}/invoices/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '25.00' }] }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: clients }, one));
  return failed;
}

async function main() {
  let dir;
  if (cloneArg >= 0) dir = resolve(args[cloneArg + 1]);
  else {
    const parent = mkdtempSync(join(tmpdir(), 'first-start-'));
    // As a clone in a home folder would be: others may pass through (root runs the database as postgres).
    chmodSync(parent, 0o755);
    dir = join(parent, 'clone');
    sh('git', ['clone', '-q', root, dir]);
    sh('npm', ['ci', '--no-audit', '--no-fund'], dir);
  }
  if (existsSync(join(dir, 'data'))) throw new Error(`${dir}/data exists: the first start must be on no data`);
  const port = 38000 + Math.floor(Math.random() * 1000);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const result = { load_before: load() };

  const first = await start(dir, port);
  result.first_start_s = first.seconds;
  const key = /Test key \(shown once\): (sk_test_\S+)/.exec(first.log())?.[1];
  await new Promise((r) => setTimeout(r, 2000));
  result.after_first_start = memory(first.child.pid);
  await stop(first.child);

  const second = await start(dir, port);
  result.second_start_s = second.seconds;
  await new Promise((r) => setTimeout(r, 2000));
  result.after_second_start = memory(second.child.pid);
  if (!key) throw new Error('no demo key printed on the first start');
  const failedSequential = await creates(port, key, 1000, 1);
  result.after_1000_creates_1_client = { ...memory(second.child.pid), failed: failedSequential };
  const failedConcurrent = await creates(port, key, 1000, 8);
  result.after_1000_creates_8_clients = { ...memory(second.child.pid), failed: failedConcurrent };
  await stop(second.child);
  result.load_after = load();
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
