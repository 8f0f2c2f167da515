import { v7 as uuidv7 } from 'uuid';

/**
 * Kind prefixes of our identifiers: prefix + UUIDv7, so ids sort by creation time. Open: the kernel
 * declares its own kinds here, and each module adds its kinds from its manifest (`ID_KINDS` and a
 * `declare module` block extending this interface), so a new module's kinds need no edit here.
 * The modules' kinds are also listed at run time (`idKindsOf` in src/module-registry.ts).
 */
export interface IdKinds {
  /** Recorded events (src/shared/events/outbox.ts). */
  event: true;
}

export type IdKind = Extract<keyof IdKinds, string>;

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
