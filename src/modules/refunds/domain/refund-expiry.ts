/** How long the payer has to name a destination when the merchant does not say (7 days), and the bounds. */
export const DEFAULT_CLAIM_MINUTES = 7 * 24 * 60;
export const MIN_CLAIM_MINUTES = 5;
export const MAX_CLAIM_MINUTES = 365 * 24 * 60;

export function claimExpiresAt(now: Date, minutes: number | undefined): Date {
  return new Date(now.getTime() + (minutes ?? DEFAULT_CLAIM_MINUTES) * 60_000);
}

/** A claim past its time takes no destination (the expiry worker marks it EXPIRED soon after). */
export function claimOpen(expiresAt: Date, now: Date): boolean {
  return now.getTime() < expiresAt.getTime();
}
