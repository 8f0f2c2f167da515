import { baseUrl } from '../../support/api';

/** Browsers ask every host for /favicon.ico (the API reference, the checkout page): an icon, not a 404. */
describe('GET /favicon.ico', () => {
  it('answers the service icon, cacheable, without a key', async () => {
    const res = await fetch(`${baseUrl()}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const body = await res.text();
    expect(body).toMatch(/^<svg[\s>]/);
    expect(body.length).toBeLessThan(4096);
  });
});
