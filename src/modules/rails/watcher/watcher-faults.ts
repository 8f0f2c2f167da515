/**
 * What can go wrong in a watcher step, and how long the watcher waits before the next one. Pure: no
 * Nest, no database, no node.
 */

/** A JSON-RPC call that failed (timeout, refused connection, 429/5xx, bad answer). */
export class RpcFault extends Error {
  constructor(
    readonly call: string,
    readonly cause: unknown,
  ) {
    super(`${call} failed: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** The chain changed under a scan (a block hash moved between calls): scan again. */
export class ChainMoved extends Error {}

export const MAX_BACKOFF_MS = 30_000;

/** Runs one node call; its failure becomes an RpcFault naming the call. */
export async function rpcCall<T>(call: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new RpcFault(call, error);
  }
}

/** One line about a failure: viem's short message (its full one spans the whole request), else the message. */
export function errorText(error: unknown): string {
  const e = error as { shortMessage?: string; message?: string; code?: string } | null;
  const text = e?.shortMessage ?? e?.message ?? String(error);
  return (e?.code ? `${e.code}: ` : '') + text.split('\n')[0].slice(0, 500);
}

/**
 * The wait after the `failures`-th failure in a row: 250 ms doubled each time up to MAX_BACKOFF_MS, with
 * ±20% jitter (`random` in [0, 1), Math.random in the watcher).
 */
export function backoffMs(failures: number, random: number): number {
  return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures - 1, 10)) * (0.8 + random * 0.4);
}

/** The wait before the next step after a failure: a chain that moved once is read again at once, anything else backs off. */
export function retryDelayMs(error: unknown, failures: number, backoff: number): number {
  return error instanceof ChainMoved && failures === 1 ? 50 : backoff;
}
