import { anonymous } from '../../support/api';
import { expectError } from '../../support/envelope';

describe('GET /assets/providers/{file}', () => {
  it.each(['usdt.svg', 'bitcoin.svg', 'card.svg'])('serves %s publicly as a cacheable SVG', async (file) => {
    const res = await anonymous().get(`/assets/providers/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(res.text).not.toMatch(/<script|href=/i);
  });

  it.each(['nope.svg', '..%2F..%2Fpackage.json', 'usdt.png'])('answers 404 for %s', async (file) => {
    expectError(await anonymous().get(`/assets/providers/${file}`), 404, { code: 'image_not_found' });
  });
});
