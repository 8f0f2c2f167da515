/**
 * One load scenario, run in its own process so the load generator never shares an event loop with
 * what it measures: autocannon against one URL for a duration at a number of connections, cycling
 * through the given request bodies and paths. Prints one JSON line: requests per second, latency
 * percentiles (from every response's own time), status counts and a sample of what failed.
 *
 *   node dist/bench/load.js '<json spec>'
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Cycled through, one per request. */
  paths: string[];
  bodies: string[];
  connections: number;
  durationSeconds: number;
  /** Also return every latency (ms), so runs split into rounds can be merged. */
  raw?: boolean;
}

export interface LoadResult {
  rps: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  sample_failure: string | null;
  duration_s: number;
  latencies?: number[];
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  // The spec inline, or `@file` when it is too long for an argument (many request bodies).
  const arg = process.argv[2];
  const spec = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as LoadSpec;
  const latencies: number[] = [];
  let n = 0;
  let sampleFailure: string | null = null;
  let done: (r: autocannon.Result) => void = () => undefined;
  let failed: (e: Error) => void = () => undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url: spec.url,
      connections: spec.connections,
      duration: spec.durationSeconds,
      timeout: 10,
      requests: [
        {
          method: spec.method,
          headers: spec.headers,
          setupRequest: (req) => {
            const i = n++;
            return { ...req, path: spec.paths[i % spec.paths.length], body: spec.bodies.length ? spec.bodies[i % spec.bodies.length] : undefined };
          },
          onResponse: (status, body) => {
            if ((status < 200 || status >= 300) && sampleFailure === null) sampleFailure = `${status} ${String(body).slice(0, 300)}`;
          },
        },
      ],
    },
    (err, r) => (err ? failed(err) : done(r)),
  );
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
  });
  const result = await finished;
  latencies.sort((a, b) => a - b);
  const out: LoadResult = {
    rps: result.requests.total / (result.duration || spec.durationSeconds),
    requests: result.requests.total,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies[latencies.length - 1] : 0,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    sample_failure: sampleFailure,
    duration_s: result.duration || spec.durationSeconds,
  };
  if (spec.raw) out.latencies = latencies.map((l) => Math.round(l * 100) / 100);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
