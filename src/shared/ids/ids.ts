import { v7 as uuidv7 } from 'uuid';

/** Kind prefixes of our identifiers: prefix + UUIDv7, so ids sort by creation time. */
export type IdKind =
  | 'org'
  | 'key'
  | 'invoice'
  | 'invoice_item'
  | 'invoice_calc'
  | 'payment'
  | 'product'
  | 'schema'
  | 'config'
  | 'metric'
  | 'file'
  | 'pi'
  | 'quote'
  | 'rates'
  | 'event'
  | 'webhook'
  | 'delivery'
  | 'attempt'
  | 'wallet'
  | 'unmatched'
  | 'refund'
  | 'subscription'
  | 'member'
  | 'audit';

export type Id<K extends IdKind> = string & { readonly __kind: K };
export type OrgId = Id<'org'>;

export function newId<K extends IdKind>(kind: K): Id<K> {
  return `${kind}_${uuidv7()}` as Id<K>;
}

/** A version group id is a fresh id of the same kind as the record it groups. */
export const newVersionGroupId = newId;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True when the text is `<kind>_<uuid>`; used for cheap early rejection, never to reveal existence. */
export function hasIdShape(kind: IdKind, text: string): boolean {
  return text.startsWith(`${kind}_`) && UUID.test(text.slice(kind.length + 1));
}
