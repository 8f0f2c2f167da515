/** TypeORM answers an UPDATE or DELETE with `[rows, affected]` and other statements with the rows. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
