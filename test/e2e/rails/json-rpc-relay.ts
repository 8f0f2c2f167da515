import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

export interface JsonRpcCall {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: unknown;
}

export interface JsonRpcRelayHooks {
  /** Changes a call before the node gets it (default: unchanged). */
  request?(call: JsonRpcCall): JsonRpcCall;
  /** Changes (or waits before passing on) the node's answer to a call (default: unchanged). */
  answer?(call: JsonRpcCall, answer: JsonRpcAnswer): JsonRpcAnswer | Promise<JsonRpcAnswer>;
}

/**
 * A JSON-RPC relay over HTTP between the service and a chain node, for tests of nodes that do not
 * behave: one that ignores a filter, one whose chain moves between two calls. Each call (single or in
 * a batch) goes through the hooks on its way to the node and back.
 */
export class JsonRpcRelay {
  private server: Server | null = null;
  /** Calls seen, by method. */
  readonly calls = new Map<string, number>();
  port = 0;

  constructor(
    /** Where calls go; may be changed while the relay runs (a backend repointed to another node). */
    public nodeUrl: string,
    readonly hooks: JsonRpcRelayHooks = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.relay(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    server?.closeAllConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcCall | JsonRpcCall[];
      const calls = Array.isArray(body) ? body : [body];
      const answers = await Promise.all(calls.map((call) => this.one(call)));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  private async one(original: JsonRpcCall): Promise<JsonRpcAnswer> {
    this.calls.set(original.method, (this.calls.get(original.method) ?? 0) + 1);
    const call = this.hooks.request ? this.hooks.request(original) : original;
    // A node URL with credentials (litecoind's user:password@): fetch takes them as a header, not in the URL.
    const target = new URL(this.nodeUrl);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (target.username)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    target.username = '';
    target.password = '';
    const response = await fetch(target, { method: 'POST', headers, body: JSON.stringify(call) });
    const answer = (await response.json()) as JsonRpcAnswer;
    return this.hooks.answer ? this.hooks.answer(call, answer) : answer;
  }
}
