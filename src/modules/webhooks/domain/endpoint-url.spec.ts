import { endpointUrlProblem } from './endpoint-url';

describe('webhook endpoint URL', () => {
  it.each([
    ['https://example.com/hooks', true],
    ['https://example.com/hooks', false],
    ['http://127.0.0.1:8080/hook', true],
    ['https://8.8.8.8/hook', false],
    ['https://localhost:8443/x', false],
  ])('accepts %p (private allowed: %p)', (url, allowPrivate) => {
    expect(endpointUrlProblem(url, allowPrivate)).toBeNull();
  });

  it.each([
    ['not a url', true, 'absolute'],
    ['ftp://example.com/x', true, 'absolute'],
    ['https://user:pass@example.com/x', true, 'credentials'],
    ['https://example.com/x#frag', true, 'fragment'],
    ['http://example.com/x', false, 'https'],
    ['https://127.0.0.1/x', false, 'private'],
    ['https://[::1]/x', false, 'private'],
    ['https://10.1.2.3/x', false, 'private'],
    ['https://169.254.169.254/latest', false, 'private'],
    [`https://example.com/${'a'.repeat(2100)}`, true, 'at most'],
  ])('refuses %p (private allowed: %p)', (url, allowPrivate, words) => {
    expect(endpointUrlProblem(url, allowPrivate)).toContain(words);
  });
});
