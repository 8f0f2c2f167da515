import { createHash } from 'node:crypto';

/**
 * Statements the service runs on its hot paths are sent as named (prepared) statements: each
 * database connection parses and plans them once and then only binds and executes them. For the
 * invoice read PostgreSQL spent about three times as long planning the statement as running it,
 * so preparing it is the largest single saving on that path.
 *
 * A statement opts in where it is declared (`prepared`), or, for statements assembled from a
 * fixed set of pieces such as the list filters, where it is assembled (`preparedShape`: named by
 * its text, so each combination of filters is prepared once per connection). Values always travel
 * as parameters, never in the text, so the number of names stays bounded.
 *
 * Set DB_PREPARED_STATEMENTS=false behind a pooler that cannot keep named statements (PgBouncer in
 * transaction mode before 1.21, or without max_prepared_statements).
 */
const names = new Map<string, string>();
let enabled = true;

/** Declares `text` a prepared statement called `name` and returns the text. */
export function prepared(name: string, text: string): string {
  const known = names.get(text);
  if (known && known !== name) throw new Error(`statement already prepared as ${known}`);
  for (const [other, otherName] of names) {
    if (otherName === name && other !== text) throw new Error(`two statements are prepared as ${name}`);
  }
  names.set(text, name);
  return text;
}

/** Declares a statement assembled at run time a prepared statement named after its text, and returns it. */
export function preparedShape(prefix: string, text: string): string {
  if (!names.has(text)) names.set(text, `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`);
  return text;
}

/** The name `text` is prepared under, or undefined (not declared, or prepared statements are off). */
export function statementName(text: string): string | undefined {
  return enabled ? names.get(text) : undefined;
}

export function setPreparedStatements(on: boolean): void {
  enabled = on;
}
