import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body. */
  json: any;
  /** The status this receiver answered (or was about to, for requests the sender abandoned). */
  answeredStatus: number;
  at: number;
}

export interface ResponsePlan {
  status: number;
  /** Wait this long before answering (to make the sender time out). */
  delayMs?: number;
  /** The answer's body (default: `ok`, or `failure <status>`). */
  body?: string;
}

/** A real HTTP server on loopback that records every webhook it is sent and answers as told. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly plans: ResponsePlan[] = [];
  private defaultPlan: ResponsePlan = { status: 200 };

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    // eslint-disable-next-line prefer-const -- the request handler refers to it before the server it needs exists
    let receiver!: WebhookReceiver;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const plan = receiver.plans.shift() ?? receiver.defaultPlan;
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // recorded as text
        }
        receiver.received.push({ path: req.url ?? '', headers: req.headers, body, json, answeredStatus: plan.status, at: Date.now() });
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(plan.status, { 'content-type': 'text/plain' });
          res.end(plan.body ?? (plan.status < 300 ? 'ok' : `failure ${plan.status}`));
        };
        if (plan.delayMs) setTimeout(answer, plan.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Answers the next requests with these plans, in order, then with the default. */
  respondWith(...plans: ResponsePlan[]): void {
    this.plans.push(...plans);
  }

  setDefault(plan: ResponsePlan): void {
    this.defaultPlan = plan;
  }

  /** Requests whose body is an event of the given type (optionally with the given id). */
  ofType(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.json?.type === type);
  }

  /** Waits until `check` returns true for the received list; throws with what arrived after the timeout. */
  async waitFor(check: (received: ReceivedWebhook[]) => boolean, timeoutMs = 15_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (check(this.received)) return this.received;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(
      `webhooks did not arrive in ${timeoutMs} ms; received: ${JSON.stringify(this.received.map((r) => [r.json?.type, r.headers['webhook-id'], r.answeredStatus]))}`,
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The attempts listed for an endpoint once there are at least `count` (the receiver sees a request
 * a moment before the service records its answer).
 */
export async function attemptsOf(
  api: { post(path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> },
  endpointId: string,
  count: number,
  filter: Record<string, unknown> = {},
  timeoutMs = 10_000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  let last: any[] = [];
  while (Date.now() < deadline) {
    const res = await api.post(`/webhooks/${endpointId}/attempts`, { ...filter, limit: 100 });
    if (res.status !== 200) throw new Error(`attempts: ${res.text}`);
    last = res.body.data.items;
    if (last.length >= count) return last;
    await sleep(50);
  }
  throw new Error(`expected ${count} attempts, found ${last.length}: ${JSON.stringify(last)}`);
}

/** Retries an assertion until it passes or the time is up (for state the service records asynchronously). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}
