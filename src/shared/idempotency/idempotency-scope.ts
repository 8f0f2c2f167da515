import { AsyncLocalStorage } from 'node:async_hooks';

/** The Idempotency-Key claim of the request being handled, if it sent one. */
export interface IdempotencyClaim {
  organizationId: string;
  mode: string;
  key: string;
  /**
   * When this request claimed the key (the row's `created_at`): a retry that takes over a stale claim
   * writes its own, so every write of this request to the row names this one and finds nothing once
   * the claim is no longer its own.
   */
  claimedAt: Date;
  /** Set once a transaction of the request has committed with the claim marked applied. */
  applied: boolean;
}

/**
 * Carries a request's claim to its transactions: the first one marks the claim `applied` in the
 * same commit as its writes, so after a crash a retry can tell "ran, answer lost" from "never ran".
 */
export const idempotencyScope = new AsyncLocalStorage<IdempotencyClaim>();
