import type { Mode, Scope } from '../auth/request-context';
import { hasIdShape, IdKind } from './ids';

/** Whether `id` names a row of its owner's kind in this organization and mode (the owner's usual lookup, in that scope). */
export type IdLookup = (scope: Scope, id: string) => Promise<boolean>;

interface IdOwner {
  kind: IdKind;
  notFoundCode: string;
  exists: IdLookup;
}

/**
 * Which module owns ids of which kind, so a 404 can say that the id exists in the caller's own
 * organization in the other mode (decisions §1). Each module registers its kinds at start
 * (`register('invoice', 'invoice_not_found', lookup)`); the kernel asks them only after a request's
 * own lookup failed (`OtherModeHintInterceptor`), never on a request that succeeds. The question is
 * always scoped to the caller's organization: an id of another organization is not found in either
 * mode, and its 404 stays plain. A plain class (it takes nothing to make), provided by the kernel module.
 */
export class OtherModeIds {
  private readonly owners: IdOwner[] = [];

  register(kind: IdKind, notFoundCode: string, exists: IdLookup): void {
    this.owners.push({ kind, notFoundCode, exists });
  }

  /** Codes some module answers for: a 404 with another code is never looked into. */
  explains(code: string): boolean {
    return this.owners.some((o) => o.notFoundCode === code);
  }

  /**
   * The other mode when one of `ids` (the request's path ids) has the kind whose 404 `code` is and
   * names a row of `scope`'s organization in the other mode; null otherwise.
   */
  async otherModeOf(code: string, scope: Scope, ids: readonly string[]): Promise<Mode | null> {
    const other: Mode = scope.mode === 'test' ? 'live' : 'test';
    for (const owner of this.owners) {
      if (owner.notFoundCode !== code) continue;
      for (const id of ids) {
        if (!hasIdShape(owner.kind, id)) continue;
        if (await owner.exists({ organizationId: scope.organizationId, mode: other }, id)) return other;
      }
    }
    return null;
  }
}
