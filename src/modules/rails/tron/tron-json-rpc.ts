/** A JSON-RPC error answer (the node understood the call and refused it). */
export class JsonRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (JSON-RPC error ${code})`);
  }
}

/** The error code of a method the node does not have (JSON-RPC 2.0 "Method not found"). */
export const METHOD_NOT_FOUND = -32601;

/**
 * A minimal JSON-RPC 2.0 client over HTTP POST (Node's fetch): java-tron answers a subset of the eth_*
 * methods with Tron's own quirks (no `pending`, 20-byte hex addresses), so the follower reads its raw
 * answers instead of going through an Ethereum client's formatters. No retries: the watcher retries.
 */
export class JsonRpcClient {
  private id = 0;

  constructor(
    private readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: { result?: T; error?: { code?: number; message?: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`${method}: the node answered HTTP ${response.status} without JSON`);
    }
    if (body.error) throw new JsonRpcError(method, Number(body.error.code ?? 0), String(body.error.message ?? 'error'));
    if (!response.ok) throw new Error(`${method}: the node answered HTTP ${response.status}`);
    return body.result as T;
  }
}
