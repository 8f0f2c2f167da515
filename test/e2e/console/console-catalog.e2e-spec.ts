import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleOrg, consoleOrg, sql } from '../../support/console-client';
import { API_CALL_TIERS, recurringProduct } from '../subscriptions/subscription-helpers';

/** The form's JSON (the textarea's text, unescaped). */
function formBody(page: string): any {
  const m = /<textarea id="product-body"[^>]*>([\s\S]*?)<\/textarea>/.exec(page);
  if (!m) throw new Error('no product form');
  return JSON.parse(
    m[1]
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#96;/g, '`')
      .replace(/&amp;/g, '&'),
  );
}

describe('management console: products and billing schemas', () => {
  let org: ConsoleOrg;
  let test: Api;
  beforeAll(async () => {
    org = await consoleOrg();
    test = new Api(org.testKey);
  });

  it('shows a product with its schemas and usage prices, and writes a new version from the prefilled API body', async () => {
    const { productId } = await recurringProduct(
      test,
      { payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'FULL', base_price: 10 },
      API_CALL_TIERS,
    );
    const list = await org.owner.get('/console/test/products');
    expect(list.text).toContain(`href="/console/test/products/${productId}"`);
    const page = await org.owner.get(`/console/test/products/${productId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Metered plan');
    expect(page.text).toContain('api_calls');
    const body = formBody(page.text);
    body.schemas[0].base_price = '12.50';
    const saved = await org.owner.submit(`/console/test/products/${productId}`, `/console/test/products/${productId}/versions`, { body: JSON.stringify(body) });
    expect(saved.status).toBe(303);
    const newId = saved.location!.split('/').pop()!;
    expect(newId).not.toBe(productId);
    const fresh = expectSuccess(await test.get(`/products/${newId}`));
    expect(fresh.schemas[0].base_price).toMatch(/^12\.50*$/);
    expect(fresh.schemas[0].configurations).toHaveLength(body.schemas[0].configurations.length);
    expect(expectSuccess(await test.get(`/products/${productId}`)).is_active).toBe(0);
    const old = await org.owner.get(`/console/test/products/${productId}`);
    expect(old.text).toContain('<dd id="product-state">Replaced</dd>');
    expect(old.text).not.toContain('Save as a new version');
    const [audit] = await sql<{ action: string }>(`SELECT action FROM console_audit_log WHERE organization_id = $1 AND target = $2`, [
      org.organizationId,
      newId,
    ]);
    expect(audit.action).toBe('product.new_version');
  });

  it("checks the new version's JSON as the API checks a body: the NUL character and reserved keys are a 400 on the page, nothing written", async () => {
    const { productId } = await recurringProduct(test, { payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'FULL', base_price: 10 });
    const page = await org.owner.get(`/console/test/products/${productId}`);
    const body = formBody(page.text);
    for (const text of [JSON.stringify({ ...body, name: 'a\u0000b' }), JSON.stringify(body).replace('{', '{"__proto__":{"x":1},')]) {
      const saved = await org.owner.submit(`/console/test/products/${productId}`, `/console/test/products/${productId}/versions`, { body: text });
      expect(saved.status).toBe(400);
    }
    expect(expectSuccess(await test.get(`/products/${productId}`)).is_active).toBe(1);
  });

  it('reads a price written as a bare JSON number exactly, as the API does: never rounded through a float, and an exponent refused', async () => {
    const { productId } = await recurringProduct(test, { payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'FULL', base_price: 10 });
    const page = await org.owner.get(`/console/test/products/${productId}`);
    const body = formBody(page.text);
    const versions = `/console/test/products/${productId}/versions`;
    // An exponent where a decimal is expected: 400, nothing written.
    const withExponent = JSON.stringify({ ...body, schemas: [{ ...body.schemas[0], base_price: '__N__' }] }).replace('"__N__"', '1e3');
    expect((await org.owner.submit(`/console/test/products/${productId}`, versions, { body: withExponent })).status).toBe(400);
    expect(expectSuccess(await test.get(`/products/${productId}`)).is_active).toBe(1);
    // Seventeen significant digits, which a float would round to 20.
    const exact = JSON.stringify({ ...body, schemas: [{ ...body.schemas[0], base_price: '__N__' }] }).replace('"__N__"', '19.9999999999999999');
    const saved = await org.owner.submit(`/console/test/products/${productId}`, versions, { body: exact });
    expect(saved.status).toBe(303);
    const created = expectSuccess(await test.get(`/products/${saved.location!.split('/').pop()!}`));
    expect(created.schemas[0].base_price).toBe('19.999999999999999900000000000000');
  });

  it('refuses a body that is not JSON or not a product, naming the field, and changes nothing', async () => {
    const { productId } = await recurringProduct(test, { payment_type: 'ADVANCE', renew_type: 'CALENDAR', billing_type: 'FULL' });
    const notJson = await org.owner.submit(`/console/test/products/${productId}`, `/console/test/products/${productId}/versions`, { body: '{ nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.text).toContain('body The product is not valid JSON');
    const page = await org.owner.get(`/console/test/products/${productId}`);
    const body = formBody(page.text);
    body.schemas[0].currency = 'NOT A CURRENCY';
    body.extra = 1;
    const bad = await org.owner.submit(`/console/test/products/${productId}`, `/console/test/products/${productId}/versions`, { body: JSON.stringify(body) });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/extra|schemas\.0\.currency/);
    expect(expectSuccess(await test.get(`/products/${productId}`)).is_active).toBe(1);
  });

  it("answers 404 for another organization's product, on the page and the new version", async () => {
    const other = await consoleOrg();
    const { productId } = await recurringProduct(new Api(other.testKey), { payment_type: 'ADVANCE', renew_type: 'CALENDAR', billing_type: 'FULL' });
    expect((await org.owner.get(`/console/test/products/${productId}`)).status).toBe(404);
    expect((await org.owner.submit('/console/test/products', `/console/test/products/${productId}/versions`, { body: '{}' })).status).toBe(404);
    expect(expectSuccess(await new Api(other.testKey).get(`/products/${productId}`)).is_active).toBe(1);
  });

  it.each([
    ['analyst', false, false],
    ['support', false, false],
    ['developer', true, false],
    ['admin', true, true],
  ] as const)('%s: new version allowed in test mode %s, in live mode %s (absent and refused otherwise)', async (role, inTest, inLive) => {
    const { client } = await addMember(org.owner, role);
    for (const [mode, key, allowed] of [
      ['test', org.testKey, inTest],
      ['live', org.liveKey, inLive],
    ] as const) {
      const api = new Api(key);
      const { productId } = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'CALENDAR', billing_type: 'FULL' });
      const page = await client.get(`/console/${mode}/products/${productId}`);
      expect(page.status).toBe(200);
      expect({ mode, form: page.text.includes('Save as a new version') }).toEqual({ mode, form: allowed });
      const body = JSON.stringify(formBodyOr(page.text, await org.owner.get(`/console/${mode}/products/${productId}`)));
      const res = await client.submit(`/console/${mode}/products/${productId}`, `/console/${mode}/products/${productId}/versions`, { body });
      expect({ mode, status: res.status }).toEqual({ mode, status: allowed ? 303 : 403 });
      expect(expectSuccess(await api.get(`/products/${productId}`)).is_active).toBe(allowed ? 0 : 1);
    }
  });
});

/** The form's body from the member's page, or (when the member has no form) from the owner's. */
function formBodyOr(memberPage: string, ownerPage: { text: string }): any {
  return memberPage.includes('id="product-body"') ? formBody(memberPage) : formBody(ownerPage.text);
}
