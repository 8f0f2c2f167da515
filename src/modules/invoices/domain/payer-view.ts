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
  'payments',
  'payments.provider',
  'items',
  'items.product',
  'items.billing_schema',
  'items.payment_intent',
  'calculations',
  'organization',
  'currency',
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

/** The parts of a catalog product a payer view is built from (the merchant's read has more). */
export interface CatalogProductForPayer {
  id: string;
  name: string;
  description: string;
  schemas: readonly CatalogSchemaForPayer[];
}

export interface CatalogSchemaForPayer {
  id: string;
  name: string;
  description: string;
  type: string;
  currency: string;
  base_price: string;
  interval_type: string | null;
  interval_count: number | null;
}

/** A billing schema as a payer sees it: the price line a checkout shows, no catalog internals. */
export type PayerSchemaView = Pick<
  CatalogSchemaForPayer,
  'id' | 'name' | 'description' | 'type' | 'currency' | 'base_price' | 'interval_type' | 'interval_count'
>;

/** A product as a payer sees it under items.product. */
export interface PayerProductView {
  id: string;
  name: string;
  description: string;
  /** Always null: a product image is served with the merchant's key only, which a payer does not hold. */
  image: null;
  schemas: PayerSchemaView[];
}

/**
 * The payer's product view is an allow-list: what a checkout shows (name, description) and
 * the billing schemas this invoice's items were priced with (`usedSchemaIds`), each reduced to its
 * price line. Never the product's metadata, its other schemas, their configurations or the catalog's
 * versioning fields. A field added to the catalog stays out of this view until it is named here.
 */
export function payerProductView(product: CatalogProductForPayer, usedSchemaIds: ReadonlySet<string>): PayerProductView {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    image: null,
    schemas: product.schemas
      .filter((s) => usedSchemaIds.has(s.id))
      .map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        type: s.type,
        currency: s.currency,
        base_price: s.base_price,
        interval_type: s.interval_type,
        interval_count: s.interval_count,
      })),
  };
}
