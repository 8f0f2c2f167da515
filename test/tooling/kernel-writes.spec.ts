import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './env-scan';

/**
 * The kernel (src/shared) writes no module's table. A table belongs to the modules whose code names it
 * (a module's SQL or TypeORM record); a table no module names is the kernel's own (idempotency_keys).
 * Every INSERT, UPDATE or DELETE in the kernel's source is found here, and any on a module's table fails
 * the test, except the one write that stays in the kernel on purpose (KERNEL_WRITES_KEPT, with its reason).
 */
const KERNEL_WRITES_KEPT: Record<string, string> = {
  events:
    "the transactional outbox (shared/events): every module records its events in its own transaction, with its own statement (withEventRow), so the row's insert stays with the kernel's outbox; the events module reads the table",
};

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path, keep) : keep(path) ? [path] : [];
  });
}

const source = (path: string) => path.endsWith('.ts') && !path.endsWith('.spec.ts');
const read = (path: string) => readFileSync(path, 'utf8');

/** Every table a migration creates. */
function tables(): string[] {
  const found = new Set<string>();
  for (const file of files(join(ROOT, 'migrations'), source)) {
    for (const m of read(file).matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/g)) found.add(m[1]);
  }
  return [...found].sort();
}

/** table -> the modules whose source names it. */
function owners(all: string[]): Map<string, string[]> {
  const byTable = new Map<string, string[]>(all.map((t) => [t, []]));
  const modules = join(ROOT, 'src', 'modules');
  for (const module of readdirSync(modules)) {
    const text = files(join(modules, module), source).map(read).join('\n');
    for (const t of all) if (new RegExp(`\\b${t}\\b`).test(text)) byTable.get(t)!.push(module);
  }
  return byTable;
}

/** The tables the kernel's source writes, each with where. */
function kernelWrites(): Array<{ table: string; where: string }> {
  const writes: Array<{ table: string; where: string }> = [];
  for (const file of files(join(ROOT, 'src', 'shared'), source)) {
    const text = read(file);
    for (const m of text.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)/g)) {
      writes.push({ table: m[1], where: `${relative(ROOT, file)}:${text.slice(0, m.index).split('\n').length}` });
    }
  }
  return writes;
}

describe('the kernel writes no module table', () => {
  const all = tables();
  const byTable = owners(all);
  const writes = kernelWrites().filter((w) => all.includes(w.table));

  it('finds the tables, their owners and the writes it checks', () => {
    expect(all).toEqual(expect.arrayContaining(['invoices', 'payments', 'events', 'test_clocks', 'idempotency_keys']));
    expect(byTable.get('payments')).toContain('payments');
    expect(byTable.get('test_clocks')).toEqual(['test-clock']);
    expect(byTable.get('idempotency_keys')).toEqual([]);
    // The scan sees the kernel's own writes (its idempotency claims) and the outbox's.
    expect(writes.map((w) => w.table)).toEqual(expect.arrayContaining(['idempotency_keys', 'events']));
  });

  it('writes only its own tables, and those KERNEL_WRITES_KEPT names', () => {
    const offending = writes
      .filter((w) => byTable.get(w.table)!.length > 0 && !(w.table in KERNEL_WRITES_KEPT))
      .map((w) => `${w.where}: writes ${w.table} (owned by ${byTable.get(w.table)!.join(', ')})`);
    expect(offending).toEqual([]);
  });
});
