import { Webhook } from 'standardwebhooks';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';
import { PNG, upload } from '../files/files-helpers';
import { productBody } from '../products/product-bodies';

/** Each module's state changes record their events in the same transaction and are delivered. */
describe('events of the domain modules', () => {
  let org: TestOrg;
  let receiver: WebhookReceiver;
  let secret: string;

  beforeEach(async () => {
    org = await createOrg();
    receiver = await WebhookReceiver.start();
    secret = expectSuccess(await org.test.post('/webhooks', { url: receiver.url(), event_types: ['*'] }), 201).secret;
  });

  afterEach(async () => {
    await receiver.stop();
  });

  async function eventsOf(type: string) {
    return expectSuccess(await org.test.post('/events', { type, limit: 100 })).items;
  }

  async function delivered(eventId: string) {
    const [hit] = (await receiver.waitFor((r) => r.some((d) => d.headers['webhook-id'] === eventId))).filter((d) => d.headers['webhook-id'] === eventId);
    return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as any;
  }

  it('product.created carries the product as GET /products/{id} shows it, and is delivered', async () => {
    const { id } = expectSuccess(await org.test.post('/products', productBody({ name: 'Event product' })));
    const [event] = await eventsOf('product.created');
    expect(event).toMatchObject({ type: 'product.created', organization_id: org.id, mode: 'test' });
    expect(event.data.object).toEqual(expectSuccess(await org.test.get(`/products/${id}`)));
    expect(await delivered(event.id)).toEqual(event);
  });

  it("product.updated carries the new version and the replaced version's differing fields", async () => {
    const { id: first } = expectSuccess(await org.test.post('/products', productBody({ name: 'Before' })));
    const { id: second } = expectSuccess(await org.test.put(`/products/${first}`, productBody({ name: 'After' })));
    const [event] = await eventsOf('product.updated');
    expect(event.data.object).toEqual(expectSuccess(await org.test.get(`/products/${second}`)));
    expect(event.data.previous_attributes).toMatchObject({ id: first, name: 'Before' });
    expect(event.data.previous_attributes).not.toHaveProperty('version_group_id');
    expect(await delivered(event.id)).toEqual(event);
  });

  it('file.created and file.deleted carry the file', async () => {
    const uploaded = expectSuccess(await upload(org.test, PNG, { filename: 'logo.png' }));
    const [created] = await eventsOf('file.created');
    expect(created.data.object).toEqual({
      id: uploaded.id,
      name: 'logo.png',
      url: `/files/${uploaded.id}/content`,
      type: 'image',
      mime_type: 'image/png',
      size: PNG.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(await delivered(created.id)).toEqual(created);

    expectSuccess(await org.test.delete(`/files/${uploaded.id}`));
    const [deleted] = await eventsOf('file.deleted');
    expect(deleted.data.object).toEqual(created.data.object);
    expect(await delivered(deleted.id)).toEqual(deleted);
  });

  it('events of the live mode stay in the live mode', async () => {
    expectSuccess(await org.live.post('/products', productBody({ name: 'Live product' })));
    expect(await eventsOf('product.created')).toEqual([]);
    const live = expectSuccess(await org.live.post('/events', { type: 'product.created' })).items;
    expect(live).toHaveLength(1);
    expect(live[0].mode).toBe('live');
    // One dispatcher pass sends whatever else is due: nothing more arrives.
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received.filter((d) => d.json.mode === 'live')).toEqual([]);
  });
});
