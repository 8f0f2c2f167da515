/**
 * A transfer into a deposit address that the payments module refused to record (kept by the watcher
 * for the merchant to see and retry): OPEN until a retry records its payment, then RESOLVED.
 */
export const UNMATCHED_STATUSES = ['OPEN', 'RESOLVED'] as const;
export type UnmatchedStatus = (typeof UNMATCHED_STATUSES)[number];

/**
 * The reason of a transfer kept without an invoice: money that reached a merchant's wallet (Solana) in a
 * transaction carrying no reference of a payment address the service handed out. It cannot be retried.
 */
export const NO_KNOWN_REFERENCE = 'no_known_reference';

/**
 * The reason of a transfer kept without an invoice because its transaction carries the references of more
 * than one payment address of the wallet: which invoice it pays cannot be told, so none is credited.
 */
export const SEVERAL_REFERENCES = 'several_references';
