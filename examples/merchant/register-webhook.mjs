// One-time setup: registers the shop's webhook URL and prints the signing secret, which the
// service shows only in this answer. Keep it as the shop's WEBHOOK_SECRET.
//
//   API_KEY=sk_test_... SHOP_URL=http://127.0.0.1:4000 node merchant/register-webhook.mjs
import { api, setting } from './api.mjs';

const shopUrl = setting('SHOP_URL', 'http://127.0.0.1:4000').replace(/\/+$/, '');

const endpoint = await api('POST', '/webhooks', {
  url: `${shopUrl}/webhooks`,
  event_types: ['invoice.completed', 'invoice.expired', 'invoice.voided'],
  description: 'example shop',
});

console.log(`webhook endpoint ${endpoint.id} registered for ${endpoint.url}`);
console.log(`WEBHOOK_SECRET=${endpoint.secret}`);
