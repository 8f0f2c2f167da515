import { parseExact } from '../node-json';

/** A JSON-RPC error answer of a Solana node (it understood the call and refused it). */
export class SolanaRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (JSON-RPC error ${code})`);
  }
}

/** The commitments Solana's JSON-RPC takes. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/**
 * A minimal JSON-RPC 2.0 client for a Solana node (Node's fetch, one POST a call). The follower reads the
 * node's documented answers as they are (numbers, base58 strings, jsonParsed transactions); no retries
 * here: the watcher retries. `calls` counts the requests sent (the bench reads it).
 */
export class SolanaRpc {
  private id = 0;
  calls = 0;

  constructor(
    private readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    this.calls++;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: { result?: T; error?: { code?: number; message?: string } };
    try {
      body = parseExact(text) as typeof body;
    } catch {
      throw new Error(`${method}: the node answered HTTP ${response.status} without JSON`);
    }
    if (body.error) throw new SolanaRpcError(method, Number(body.error.code ?? 0), String(body.error.message ?? 'error'));
    if (!response.ok) throw new Error(`${method}: the node answered HTTP ${response.status}`);
    return body.result as T;
  }
}
