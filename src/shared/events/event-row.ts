/** The event row's insert as a part of a writer's own statement (pure: no framework, no database). */

/** The columns of an event row, in the order of its values. */
export const EVENT_COLUMNS = 'id, organization_id, mode, type, data, created_at';
/** The number of values an event row takes (the last ones of a statement made by `withEventRow`). */
export const EVENT_ROW_VALUES = 6;

/**
 * `sql` (one statement, with `count` parameters) with the insert of an event row added as a
 * data-modifying CTE whose values are parameters count+1 to count+6: a change and its event are
 * then one statement, one round trip, atomic on its own. Used at module load to declare prepared
 * statements; the values come from `EventOutbox.prepare`.
 */
export function withEventRow(sql: string, count: number): string {
  const p = (i: number) => `$${count + i}`;
  const insert = `recorded_event AS (INSERT INTO events (${EVENT_COLUMNS}) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}::jsonb, ${p(6)}))`;
  const text = sql.trim();
  if (/^WITH\s+RECURSIVE\s/i.test(text)) throw new Error('withEventRow: WITH RECURSIVE is not supported');
  return /^WITH\s/i.test(text) ? `WITH ${insert},\n${text.slice(4).trimStart()}` : `WITH ${insert}\n${text}`;
}
