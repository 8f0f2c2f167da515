/**
 * What a payer (a call without a key, decisions §3) may see of an invoice and how the merchant's
 * fuller read differs. Pure: used by the read query and unit-tested.
 */

/** `jane@example.com` -> `j***@example.com`; anything without an @ is fully hidden. */
export function maskEmail(email: string | null): string | null {
  if (email == null) return null;
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

export const EXPANSIONS = [
  'payments', 'payments.provider', 'items', 'items.product', 'items.billing_schema', 'items.payment_intent',
  'calculations', 'organization', 'currency',
] as const;
export type Expansion = (typeof EXPANSIONS)[number];

export const PAYER_EXPANSIONS: readonly Expansion[] = ['items', 'items.product', 'calculations', 'organization', 'payments', 'payments.provider'];

/** The expansions a request asks for, with their parents implied (items.product implies items). */
export function withImpliedParents(expand: readonly Expansion[]): Set<Expansion> {
  const out = new Set<Expansion>(expand);
  for (const e of expand) {
    const parent = e.split('.')[0] as Expansion;
    if (parent !== e) out.add(parent);
  }
  return out;
}
