import { AsyncLocalStorage } from 'node:async_hooks';

/** The Idempotency-Key claim of the request being handled, if it sent one. */
export interface IdempotencyClaim {
  organizationId: string;
  mode: string;
  key: string;
  /** Set once a transaction of the request has committed with the claim marked applied. */
  applied: boolean;
}

/**
 * Carries a request's claim to its transactions: the first one marks the claim `applied` in the
 * same commit as its writes, so after a crash a retry can tell "ran, answer lost" from "never ran".
 */
export const idempotencyScope = new AsyncLocalStorage<IdempotencyClaim>();
