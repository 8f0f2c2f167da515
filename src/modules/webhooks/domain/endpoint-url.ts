import { isIpLiteral, isPublicAddress } from './address-guard';

export const MAX_URL_LENGTH = 2048;

/**
 * What is wrong with a webhook URL as written (before any name lookup), or null. With the guard
 * on (`allowPrivate` false) only https is allowed and an IP literal must be public; host names are
 * checked by resolving them (at registration and again at every delivery).
 */
export function endpointUrlProblem(text: string, allowPrivate: boolean): string | null {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute http or https URL';
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a fragment';
  if (!allowPrivate) {
    if (url.protocol !== 'https:') return 'must use https';
    if (isIpLiteral(url.hostname) && !isPublicAddress(url.hostname)) return 'must not point at a private, loopback or link-local address';
  }
  return null;
}
