import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call the service made through the recorder. */
export interface RecordedCall {
  method: string;
  params: unknown[];
}

/**
 * A pass-through in front of a node's JSON-RPC that notes every call (method and parameters) before
 * handing it on unchanged, headers and all: tests count what the service asked the node.
 */
export class RpcRecorder {
  readonly calls: RecordedCall[] = [];
  /** A single call this matches is answered with a JSON-RPC error instead of being handed on (a node that cannot answer it now). */
  failing: ((call: RecordedCall) => boolean) | null = null;
  /** Milliseconds a single call is held before it is handed on (a slow node); none when null or 0. */
  delaying: ((call: RecordedCall) => number) | null = null;
  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(targetUrl: string): Promise<RpcRecorder> {
    const target = new URL(targetUrl);
    target.username = '';
    target.password = '';
    let recorder: RpcRecorder | null = null;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        let held = 0;
        try {
          const call = JSON.parse(body.toString()) as { id?: unknown; method?: string; params?: unknown[] };
          for (const one of Array.isArray(call) ? (call as Array<typeof call>) : [call]) {
            recorder!.calls.push({ method: String(one.method), params: one.params ?? [] });
          }
          const failing = recorder!.failing;
          if (!Array.isArray(call) && failing?.({ method: String(call.method), params: call.params ?? [] })) {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: { code: -32603, message: 'the node cannot answer this now' } }));
            return;
          }
          if (!Array.isArray(call)) held = recorder!.delaying?.({ method: String(call.method), params: call.params ?? [] }) ?? 0;
        } catch {
          // Not JSON: passed on as it is; the node answers it.
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers[name] = value;
        new Promise((resolve) => setTimeout(resolve, held))
          .then(() => fetch(target, { method: req.method, headers, body }))
          .then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
            res.end(Buffer.from(await answer.arrayBuffer()));
          })
          .catch(() => res.writeHead(502).end());
      });
    });
    recorder = new RpcRecorder(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  /** The recorder's URL with the credentials of `withCredentialsOf` (the node's URL), as a chains file takes it. */
  url(withCredentialsOf: string): string {
    const own = new URL(withCredentialsOf);
    own.host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return own.toString().replace(/\/$/, '');
  }

  /** How many calls of `method` had `first` as their first parameter (those after the `since`-th call of all). */
  count(method: string, first: unknown, since = 0): number {
    return this.calls.slice(since).filter((c) => c.method === method && c.params[0] === first).length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
