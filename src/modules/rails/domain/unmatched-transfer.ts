/**
 * A transfer into a deposit address that the payments module refused to record (kept by the watcher
 * for the merchant to see and retry): OPEN until a retry records its payment, then RESOLVED.
 */
export const UNMATCHED_STATUSES = ['OPEN', 'RESOLVED'] as const;
export type UnmatchedStatus = (typeof UNMATCHED_STATUSES)[number];
