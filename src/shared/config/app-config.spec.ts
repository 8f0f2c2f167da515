import { loadConfig } from './app-config';

describe('client address and body settings', () => {
  it('trusts only loopback to set X-Forwarded-* by default', () => {
    const config = loadConfig({});
    expect(config.TRUST_PROXY).toBe('loopback');
    expect(config.trustProxy).toBe('loopback');
  });

  it.each([
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8, 127.0.0.1'],
    ['1', 1],
    ['2', 2],
    ['false', false],
  ])('reads TRUST_PROXY=%p as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('caps keyless payer bodies at 8 KB by default, below the keyed cap', () => {
    const config = loadConfig({});
    expect(config.PAYER_BODY_LIMIT_BYTES).toBe(8192);
    expect(config.BODY_LIMIT_BYTES).toBe(1024 * 1024);
  });
});
