import { spawn } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { CLI, ROOT, runCli } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';

/** The CLI's webhooks:listen as a developer runs it: a process printing lines until it gets Ctrl-C. */
function startListener(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'webhooks:listen', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const waitFor = async (pattern: RegExp, ms = 30_000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`webhooks:listen did not print ${pattern}; it printed:\n${output}`);
  };
  return { child, exited, waitFor, output: () => output };
}

// Each case runs the CLI as separate processes, several times: minutes on a busy machine.
jest.setTimeout(180_000);

describe('npm run cli -- webhooks:listen / webhooks:trigger', () => {
  it('forwards each signed delivery to the local app with its signature, prints a line per event, and removes its endpoint on Ctrl-C', async () => {
    const org = await createOrg();
    const app = await WebhookReceiver.start();
    const listener = startListener(['--forward-to', app.url('/hooks'), '--api-key', org.testKey, '--api-url', baseUrl()]);
    try {
      const [, endpointId] = await listener.waitFor(/Ready: forwarding \* events to \S+ \(endpoint (webhook_\S+)\)\./);
      const [, secret] = await listener.waitFor(/Signing secret for your code to verify with: (whsec_\S+)/);
      expect(expectSuccess(await org.test.get('/webhooks')).items.map((e: { id: string }) => e.id)).toEqual([endpointId]);

      const triggered = await runCli(['webhooks:trigger', 'invoice.completed', '--api-key', org.testKey, '--api-url', baseUrl()], {});
      expect(triggered.code).toBe(0);
      const [invoiceId] = (JSON.parse(triggered.stdout) as { ids: string[] }).ids;

      const received = await app.waitFor((list) => list.some((r) => r.json?.type === 'invoice.completed'));
      const completed = received.find((r) => r.json?.type === 'invoice.completed')!;
      expect(completed.path).toBe('/hooks');
      expect(completed.json.data.object.id).toBe(invoiceId);
      // The app verifies the forwarded delivery with the printed secret, as it will verify the service's own in production.
      const headers = {
        'webhook-id': String(completed.headers['webhook-id']),
        'webhook-timestamp': String(completed.headers['webhook-timestamp']),
        'webhook-signature': String(completed.headers['webhook-signature']),
      };
      expect(new Webhook(secret).verify(completed.body, headers)).toMatchObject({ type: 'invoice.completed' });
      await listener.waitFor(new RegExp(`invoice\\.completed ${completed.json.id as string}  -> ${app.url('/hooks')} \\[200\\]`));
      await listener.waitFor(/invoice\.created event_\S+ {2}-> \S+ \[200\]/);

      listener.child.kill('SIGINT');
      expect(await listener.exited).toBe(0);
      expect(listener.output()).toContain(`Stopped (SIGINT): endpoint ${endpointId} removed.`);
      expect(expectSuccess(await org.test.get('/webhooks')).items).toEqual([]);
    } finally {
      if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
      await app.stop();
    }
  });

  it('refuses a delivery that is not signed with its endpoint secret, and does not forward it', async () => {
    const org = await createOrg();
    const app = await WebhookReceiver.start();
    const listener = startListener(['--forward-to', app.url('/hooks'), '--api-key', org.testKey, '--api-url', baseUrl(), '--events', 'invoice.created']);
    try {
      await listener.waitFor(/Ready: forwarding invoice\.created events/);
      const endpoint = expectSuccess(await org.test.get('/webhooks')).items[0] as { url: string; event_types: string[] };
      expect(endpoint.event_types).toEqual(['invoice.created']);
      const forged = new Webhook('whsec_' + Buffer.from('not the endpoint secret 32 bytes!').toString('base64'));
      const body = JSON.stringify({ id: 'event_forged', type: 'invoice.created' });
      const at = new Date();
      const res = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'event_forged',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': forged.sign('event_forged', at, body),
        },
        body,
      });
      expect(res.status).toBe(400);
      await listener.waitFor(/rejected a delivery whose signature does not verify/);
      expect(app.received).toEqual([]);
    } finally {
      listener.child.kill('SIGINT');
      await listener.exited;
      await app.stop();
    }
  });

  it('without --forward-to prints each verified event it receives, and still removes its endpoint on exit', async () => {
    const org = await createOrg();
    const listener = startListener(['--api-key', org.testKey, '--api-url', baseUrl(), '--events', 'invoice.created']);
    try {
      const [, endpointId] = await listener.waitFor(/Ready: printing invoice\.created events as they arrive \(endpoint (webhook_\S+)\)\./);
      const endpoint = expectSuccess<{ description: string }>(await org.test.get(`/webhooks/${endpointId}`));
      expect(endpoint.description).toBe('webhooks:listen (temporary)');
      const invoice = expectSuccess<{ id: string }>(
        await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '3' }], customer_email: 'p@example.com' }),
        201,
      );
      const events = expectSuccess<{ items: { id: string; data: { object: { id: string } } }[] }>(await org.test.post('/events', { type: 'invoice.created' }));
      const event = events.items.find((e) => e.data.object.id === invoice.id)!;
      await listener.waitFor(new RegExp(`invoice\\.created ${event.id}  received$`, 'm'));
      expect(listener.output()).not.toContain('->');

      listener.child.kill('SIGTERM');
      expect(await listener.exited).toBe(0);
      expect(listener.output()).toContain(`Stopped (SIGTERM): endpoint ${endpointId} removed.`);
      expect(expectSuccess(await org.test.get('/webhooks')).items).toEqual([]);
    } finally {
      if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
    }
  });

  it('triggers in test mode only, and names the events it can trigger', async () => {
    const org = await createOrg();
    const live = await runCli(['webhooks:trigger', 'invoice.created', '--api-key', org.liveKey, '--api-url', baseUrl()], {});
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('test mode only');
    const unknown = await runCli(['webhooks:trigger', 'invoice.exploded', '--api-key', org.testKey, '--api-url', baseUrl()], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('invoice.created, payment.created, invoice.completed');
    const created = await runCli(['webhooks:trigger', 'payment.created', '--api-key', org.testKey, '--api-url', baseUrl()], {});
    expect(created.code).toBe(0);
    const [invoiceId, paymentId] = (JSON.parse(created.stdout) as { ids: string[] }).ids;
    expect(expectSuccess(await org.test.post(`/payments/${paymentId}`, {})).invoice_id).toBe(invoiceId);
  });
});
