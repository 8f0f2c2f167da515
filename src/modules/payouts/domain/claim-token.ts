/** A claim token's prefix: the token is the payer's capability (no key), the last part of the claim's address. */
export const CLAIM_TOKEN_PREFIX = 'rc_';

/** The claim page's address for a token: absolute under `publicBaseUrl` (PUBLIC_BASE_URL), else a path. */
export function claimUrlOf(token: string, publicBaseUrl: string | undefined): string {
  const base = publicBaseUrl?.trim().replace(/\/+$/, '') ?? '';
  return `${base}/refund_claims/${encodeURIComponent(token)}`;
}
