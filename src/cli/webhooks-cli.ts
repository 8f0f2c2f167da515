import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { CliArgs, CliUsageError } from './cli-args';

/**
 * Commands that talk to a running service over HTTP with an API key, the way a merchant's code does,
 * instead of opening the database: a developer points them at the service they are building against.
 *
 *   webhooks:listen [--forward-to URL] [--events a,b] [--api-key KEY] [--api-url URL]
 *   webhooks:trigger EVENT [--api-key KEY] [--api-url URL]
 *
 * The key comes from --api-key or API_KEY; the service from --api-url or API_URL (default http://127.0.0.1:3000).
 */
export interface HttpCliCommand {
  usage: string;
  run(args: CliArgs, out: (line: string) => void, env: NodeJS.ProcessEnv): Promise<number>;
}

interface ServiceTarget {
  apiUrl: string;
  apiKey: string;
}

function targetOf(args: CliArgs, env: NodeJS.ProcessEnv): ServiceTarget {
  const apiKey = typeof args.flags['api-key'] === 'string' ? args.flags['api-key'] : env.API_KEY;
  if (!apiKey) throw new CliUsageError('an API key is required: --api-key sk_test_... or API_KEY');
  const apiUrl = (typeof args.flags['api-url'] === 'string' ? args.flags['api-url'] : (env.API_URL ?? 'http://127.0.0.1:3000')).replace(/\/+$/, '');
  return { apiUrl, apiKey };
}

/** One call to the service; the envelope's `data` on success, an error naming the call and the service's message otherwise. */
async function call<T>(target: ServiceTarget, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json().catch(() => null)) as { data?: T; error?: string; code?: string } | null;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}${envelope?.error ? `: ${envelope.error}` : ''}`);
  return envelope?.data as T;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * webhooks:listen registers a temporary endpoint at a loopback listener of its own, checks each delivery's
 * signature, forwards the delivery (body and signature headers unchanged, so the developer's code verifies
 * it with the printed secret) to --forward-to, prints one line per event, and removes the endpoint on exit.
 * The service is answered with the forward target's status, so retries behave as they will in production.
 * Without --forward-to it only prints the events it receives (and answers 200), to watch them arrive.
 */
const listen: HttpCliCommand = {
  usage: 'webhooks:listen [--forward-to URL] [--events type,type|*] [--api-key KEY] [--api-url URL]   (until Ctrl-C)',
  async run(args, out, env) {
    const target = targetOf(args, env);
    const forwardFlag = args.flags['forward-to'];
    if (forwardFlag !== undefined && (typeof forwardFlag !== 'string' || !/^https?:\/\//.test(forwardFlag))) {
      throw new CliUsageError('--forward-to must be an http(s) URL');
    }
    const forwardTo = typeof forwardFlag === 'string' ? forwardFlag : null;
    const events = typeof args.flags.events === 'string' ? args.flags.events.split(',').map((e) => e.trim()) : ['*'];
    let verifier: Webhook | null = null;

    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        const body = await readBody(req);
        const headers = Object.fromEntries(SIGNATURE_HEADERS.map((h) => [h, String(req.headers[h] ?? '')]));
        let event: { id?: string; type?: string };
        try {
          if (!verifier) throw new Error('not registered yet');
          event = verifier.verify(body, headers) as { id?: string; type?: string };
        } catch {
          out(`${new Date().toISOString()}  rejected a delivery whose signature does not verify`);
          res.writeHead(400).end();
          return;
        }
        if (forwardTo === null) {
          out(`${new Date().toISOString()}  ${event.type} ${event.id}  received`);
          res.writeHead(200).end();
          return;
        }
        let status: number;
        try {
          const forwarded = await fetch(forwardTo, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
          status = forwarded.status;
        } catch (e) {
          out(`${new Date().toISOString()}  ${event.type} ${event.id}  -> ${forwardTo} failed: ${(e as Error).message}`);
          res.writeHead(502).end();
          return;
        }
        out(`${new Date().toISOString()}  ${event.type} ${event.id}  -> ${forwardTo} [${status}]`);
        res.writeHead(status >= 200 && status < 300 ? 200 : 502).end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    const endpoint = await call<{ id: string; secret: string }>(target, 'POST', '/webhooks', {
      url: `http://127.0.0.1:${port}/`,
      event_types: events.length === 1 && events[0] === '*' ? '*' : events,
      description: forwardTo === null ? 'webhooks:listen (temporary)' : `webhooks:listen (temporary, forwarding to ${forwardTo})`,
    });
    verifier = new Webhook(endpoint.secret);
    out(
      forwardTo === null
        ? `Ready: printing ${events.join(', ')} events as they arrive (endpoint ${endpoint.id}).`
        : `Ready: forwarding ${events.join(', ')} events to ${forwardTo} (endpoint ${endpoint.id}).`,
    );
    out(`Signing secret for your code to verify with: ${endpoint.secret}`);

    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    await call(target, 'DELETE', `/webhooks/${endpoint.id}`).then(
      () => out(`Stopped (${signal}): endpoint ${endpoint.id} removed.`),
      (e: Error) => out(`Stopped (${signal}); removing endpoint ${endpoint.id} failed: ${e.message}`),
    );
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return 0;
  },
};

/**
 * webhooks:trigger makes a real event happen in test mode, through the same calls a merchant's code would make,
 * so every endpoint subscribed to it (a webhooks:listen one included) gets a real delivery.
 */
const TRIGGERS: Record<string, (target: ServiceTarget) => Promise<string[]>> = {
  'invoice.created': async (target) => [await testInvoice(target)],
  'payment.created': async (target) => {
    const invoice = await testInvoice(target);
    const payment = await call<{ id: string }>(target, 'POST', '/test_helpers/payments', {
      invoice_id: invoice,
      provider_id: 'prov_ethereum_usdt',
      price: '1',
    });
    return [invoice, payment.id];
  },
  'invoice.completed': async (target) => {
    const invoice = await testInvoice(target);
    const payment = await call<{ id: string }>(target, 'POST', '/test_helpers/payments', {
      invoice_id: invoice,
      provider_id: 'prov_ethereum_usdt',
      price: '10',
      status: 'COMPLETED',
    });
    return [invoice, payment.id];
  },
};

async function testInvoice(target: ServiceTarget): Promise<string> {
  const invoice = await call<{ id: string }>(target, 'POST', '/invoices/create', {
    items: [{ type: 'PAYMENT_INTENT', currency: 'USDT', price: '10' }],
    customer_email: 'trigger@example.com',
    metadata: { created_by: 'webhooks:trigger' },
  });
  return invoice.id;
}

const trigger: HttpCliCommand = {
  usage: `webhooks:trigger ${Object.keys(TRIGGERS).join('|')} [--api-key sk_test_...] [--api-url URL]`,
  async run(args, out, env) {
    const target = targetOf(args, env);
    if (!target.apiKey.startsWith('sk_test_')) throw new CliUsageError('webhooks:trigger works in test mode only: give a sk_test_ key');
    const event = args.positional[0];
    const make = event ? TRIGGERS[event] : undefined;
    if (!make) throw new CliUsageError(`name the event to trigger: ${Object.keys(TRIGGERS).join(', ')}`);
    const ids = await make(target);
    out(JSON.stringify({ triggered: event, ids }, null, 2));
    return 0;
  },
};

export const HTTP_CLI_COMMANDS: Record<string, HttpCliCommand> = { 'webhooks:listen': listen, 'webhooks:trigger': trigger };
