import { randomBytes } from 'node:crypto';
import { CLAIM_TOKEN_PREFIX, claimUrlOf } from './domain/claim-token';

/** A fresh claim token: 24 random bytes, base64url, after the prefix. */
export function newClaimToken(): string {
  return `${CLAIM_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
}

/** The claim page's address for a token (the routes are this module's: /refund_claims/{token}). */
export function claimUrl(token: string): string {
  return claimUrlOf(token, process.env.PUBLIC_BASE_URL);
}
