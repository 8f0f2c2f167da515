import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';

/**
 * Committed events are published on the EventBus, and the webhooks module reacts to every module's
 * events by bringing its next dispatch pass forward: with a dispatch interval of a minute, an
 * invoice's event still reaches its endpoint within seconds of the write that recorded it.
 */
describe('events published after commit', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '60000' });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it('bring the webhook delivery of an invoice event forward (no wait for the dispatch interval)', async () => {
    const org = await service.createOrg();
    expectSuccess(await org.test.post('/webhooks', { url: receiver.url(), event_types: ['invoice.created', 'invoice.updated'] }), 201);
    const started = Date.now();
    const id = await createInvoice(org.test);
    const created = await receiver.waitFor((r) => r.some((d) => d.json?.type === 'invoice.created'), 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(created.find((d) => d.json?.type === 'invoice.created')?.json).toMatchObject({
      type: 'invoice.created',
      organization_id: org.id,
      data: { object: { id } },
    });

    // A change through a test payment (another module's write, in a transaction): invoice.updated follows as quickly.
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_ethereum_usdt', price: '1' }), 201);
    const updated = await receiver.waitFor((r) => r.some((d) => d.json?.type === 'invoice.updated'), 10_000);
    expect(updated.find((d) => d.json?.type === 'invoice.updated')?.json).toMatchObject({ data: { object: { id, status: 'WAITING_FOR_CONFIRMATIONS' } } });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
