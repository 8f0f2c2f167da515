/**
 * The startup parameters of the service's own sessions (primary and replicas) when it talks to
 * PostgreSQL directly (not behind a pooler, which may refuse them): sent in the startup packet, so
 * they cost no round trip.
 *
 * - `plan_cache_mode=force_generic_plan`: statements are planned once per session (data-source.ts).
 * - `jit=off`: a generic plan does not know a list's LIMIT, so PostgreSQL prices a page as a tenth
 *   of its matches. On a large table that crosses `jit_above_cost`, and PostgreSQL then compiled the
 *   plan's expressions on every call: a page of 20 of one organization's events among ten million
 *   took 50 ms, 57 ms of it JIT (98 functions), against 0.4 ms without (large-history bench,
 *   docs/performance.md). Nothing the service runs is long enough to gain from JIT. Behind a pooler
 *   the plans are custom (they know the LIMIT), but an operator can still turn it off for the role:
 *   `ALTER ROLE ... SET jit = off` (docs/production.md).
 */
export const SESSION_OPTIONS = '-c plan_cache_mode=force_generic_plan -c jit=off';
