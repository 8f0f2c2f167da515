// A small shop server: it creates an invoice for each order, sends the payer to the hosted
// checkout page, and fulfils the order when a signed invoice.completed webhook arrives.
//
//   API_KEY=sk_test_... WEBHOOK_SECRET=whsec_... node merchant/shop.mjs
//
// Routes:
//   GET  /                a form to place an order (for trying it in a browser)
//   POST /checkout        {amount, currency?, email?} (JSON or a form): 303 to the checkout page
//   GET  /orders/{id}     the order and its status (pending, paid, cancelled)
//   POST /webhooks        the URL registered with merchant/register-webhook.mjs
//
// Orders live in memory here; a real shop keeps them in its database.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { api, API_BASE_URL, ApiError, checkoutAddress, setting } from './api.mjs';

const PORT = Number(setting('PORT', '4000'));
const HOST = setting('HOST', '127.0.0.1');
const SHOP_URL = setting('SHOP_URL', `http://${HOST}:${PORT}`).replace(/\/+$/, '');
// The whsec_... secret printed by register-webhook.mjs. The library checks the HMAC-SHA256
// signature of "<webhook-id>.<webhook-timestamp>.<body>" and that the timestamp is within 5 minutes.
const webhook = new Webhook(setting('WEBHOOK_SECRET'));

/** @type {Map<string, {id: string, amount: string, currency: string, status: string, invoice_id: string | null, checkout_url: string | null}>} */
const orders = new Map();
/** Event ids already handled: delivery is at least once, so the same event may come again. */
const handled = new Set();

async function placeOrder(fields) {
  const order = {
    id: randomUUID(),
    amount: String(fields.amount ?? ''),
    currency: String(fields.currency || 'USD'),
    status: 'pending',
    invoice_id: null,
    checkout_url: null,
  };
  // The answer carries the new invoice's id; its read has the price and the checkout page's address.
  const created = await api(
    'POST',
    '/invoices/create',
    {
      items: [{ type: 'PAYMENT_INTENT', currency: order.currency, price: order.amount }],
      ...(fields.email && { customer_email: String(fields.email) }),
      metadata: { order_id: order.id },
      redirect_url: `${SHOP_URL}/orders/${order.id}`,
    },
    { idempotencyKey: `order-${order.id}` },
  );
  const invoice = await api('POST', `/invoices/${created.id}`, {});
  order.invoice_id = invoice.id;
  order.checkout_url = checkoutAddress(invoice);
  orders.set(order.id, order);
  console.log(`invoice ${invoice.id} created for order ${order.id} (${invoice.price} ${invoice.currency}); payer sent to ${order.checkout_url}`);
  return order;
}

/** What the shop does with a verified event. */
function react(event) {
  const invoice = event.data.object;
  const order = orders.get(invoice.metadata?.order_id);
  if (!order || order.invoice_id !== invoice.id) {
    console.log(`event ${event.id} (${event.type}) is about no order of this shop: ignored`);
    return;
  }
  if (event.type === 'invoice.completed' && order.status !== 'paid') {
    order.status = 'paid';
    console.log(`order ${order.id} paid: invoice ${invoice.id} is ${invoice.status}; shipping it`);
  } else if ((event.type === 'invoice.expired' || event.type === 'invoice.voided') && order.status === 'pending') {
    order.status = 'cancelled';
    console.log(`order ${order.id} cancelled: invoice ${invoice.id} ${event.type.slice('invoice.'.length)}`);
  }
}

async function receiveWebhook(req, res) {
  // The signature covers the exact bytes sent: verify the raw body, and parse only what verified.
  const raw = await readBody(req);
  let event;
  try {
    event = webhook.verify(raw, req.headers);
  } catch (error) {
    console.log(`webhook refused (${req.headers['webhook-id'] ?? 'no id'}): ${error.message}`);
    return reply(res, 400, { error: 'invalid signature' });
  }
  console.log(`webhook ${event.id} verified: ${event.type} ${event.data.object.id}`);
  if (handled.has(event.id)) {
    console.log(`event ${event.id} was handled before: skipped`);
  } else {
    react(event);
    handled.add(event.id);
  }
  // Any 2xx within the service's timeout counts as delivered; anything else is retried later.
  reply(res, 204);
}

async function checkout(req, res) {
  const text = (await readBody(req)).toString('utf8');
  let fields;
  try {
    fields = /json/.test(req.headers['content-type'] ?? '') ? JSON.parse(text || '{}') : Object.fromEntries(new URLSearchParams(text));
  } catch {
    return reply(res, 400, { error: 'the body is not JSON' });
  }
  try {
    const order = await placeOrder(fields);
    // 303: the browser follows with a GET of the hosted checkout page.
    reply(res, 303, { order_id: order.id, invoice_id: order.invoice_id, checkout_url: order.checkout_url }, { location: order.checkout_url });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.log(`invoice refused: ${error.message}`);
    reply(res, error.status === 400 ? 400 : 502, { error: error.envelope?.error ?? 'the payment service failed', fields: error.envelope?.validator ?? null });
  }
}

const FORM = `<!doctype html><title>Example shop</title>
<form method="post" action="/checkout"><label>Amount <input name="amount" value="19.90"></label>
<label>Currency <input name="currency" value="USD"></label><button>Pay</button></form>`;

const server = createServer((req, res) => {
  const { pathname } = new URL(req.url ?? '/', 'http://shop');
  const order = /^\/orders\/([\w-]+)$/.exec(pathname);
  let handling;
  if (req.method === 'POST' && pathname === '/webhooks') handling = receiveWebhook(req, res);
  else if (req.method === 'POST' && pathname === '/checkout') handling = checkout(req, res);
  else if (req.method === 'GET' && order)
    handling = Promise.resolve(orders.has(order[1]) ? reply(res, 200, orders.get(order[1])) : reply(res, 404, { error: 'no such order' }));
  else if (req.method === 'GET' && pathname === '/') handling = Promise.resolve(res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FORM));
  else handling = Promise.resolve(reply(res, 404, { error: 'not found' }));
  handling.catch((error) => {
    console.error(`${req.method} ${pathname} failed: ${error.stack ?? error}`);
    if (!res.headersSent) reply(res, 500, { error: 'internal error' });
  });
});

function readBody(req, limit = 1024 * 1024) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reply(res, status, body, headers = {}) {
  if (body === undefined) return res.writeHead(status, headers).end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

server.listen(PORT, HOST, () => console.log(`shop listening on http://${HOST}:${PORT} (API ${API_BASE_URL})`));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
