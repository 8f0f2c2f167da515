import { ALL_EVENTS } from '../../../shared/events/event-types';

/** Normalizes an endpoint's subscription: without duplicates, and `*` alone when present. */
export function normalizeEventTypes(types: readonly string[]): string[] {
  if (types.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return [...new Set(types)].sort();
}
