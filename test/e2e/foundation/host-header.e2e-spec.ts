import { baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { rawRequest } from '../../support/raw-http';
import { upload } from '../files/files-helpers';
import { createInvoice } from '../payments/payments-helpers';

/** Every absolute URL in a JSON text. */
const urlsIn = (text: string) => text.match(/https?:\/\/[^"\s]+/g) ?? [];

/**
 * URLs in responses never come from an unvalidated Host header: the shared test service has no
 * PUBLIC_BASE_URL (only production requires it), so it keeps a loopback Host and replaces any other.
 */
describe('Host header', () => {
  const service = () => new URL(baseUrl());

  it('never puts a foreign Host into the provider image URLs of a keyless GET /providers/{invoice_id}', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    for (const host of ['evil.example', `evil.example:${service().port}`, 'localhost.evil.example']) {
      const res = await rawRequest(`${baseUrl()}/providers/${invoiceId}`, { headers: { host } });
      const data = expectSuccess(res as any);
      expect(data.providers.length).toBeGreaterThan(0);
      expect(res.text).not.toContain('evil.example');
      const urls = urlsIn(res.text);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(new URL(url).hostname).toBe('localhost');
    }
    // a loopback Host is kept, so the links work for whoever runs the service locally
    const local = await rawRequest(`${baseUrl()}/providers/${invoiceId}`, { headers: { host: service().host } });
    for (const url of urlsIn(local.text)) expect(url.startsWith(`${baseUrl()}/assets/providers/`)).toBe(true);
  });

  it('never puts a foreign Host into file URLs (upload answer and file list)', async () => {
    const { test, testKey } = await createOrg();
    const uploaded = expectSuccess(await upload(test, Buffer.from('hello'), { filename: 'a.txt', contentType: 'text/plain' }));
    expect(uploaded.url).toBe(`${baseUrl()}/files/${uploaded.id}/content`);
    const listed = await rawRequest(`${baseUrl()}/files`, { headers: { host: 'evil.example', authorization: testKey } });
    const files = expectSuccess(listed as any).items;
    expect(files.map((f: any) => f.id)).toContain(uploaded.id);
    expect(listed.text).not.toContain('evil.example');
    for (const f of files) expect(new URL(f.url).hostname).toBe('localhost');
  });
});
