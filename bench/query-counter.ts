/**
 * Preloaded into a service process by bench/write-cost.ts (`node -r dist/bench/query-counter.js ...`):
 * counts every statement the process sends to PostgreSQL (each `pg` Client#query is one round trip),
 * by statement text. On SIGUSR2 it writes the counts so far to QUERY_COUNTER_FILE. Measurement only;
 * the service never loads it by itself.
 */
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';

const counts = new Map<string, number>();
let total = 0;

type QueryFn = (this: Client, ...args: unknown[]) => unknown;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its client through apply()
const original = Client.prototype.query as unknown as QueryFn;

function textOf(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object') {
    const q = arg as { text?: string; name?: string };
    return q.text ?? (q.name ? `[prepared ${q.name}]` : '[query object]');
  }
  return '[unknown]';
}

(Client.prototype as unknown as { query: QueryFn }).query = function counted(this: Client, ...args: unknown[]): unknown {
  const text = textOf(args[0]).replace(/\s+/g, ' ').trim().slice(0, 160);
  counts.set(text, (counts.get(text) ?? 0) + 1);
  total++;
  return original.apply(this, args);
};

process.on('SIGUSR2', () => {
  const file = process.env.QUERY_COUNTER_FILE;
  if (!file) return;
  writeFileSync(file, JSON.stringify({ total, byText: Object.fromEntries(counts) }));
});
