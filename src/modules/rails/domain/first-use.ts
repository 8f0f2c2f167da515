/**
 * A value made at its first use and kept for the process: `onFirstUse(() => require('lib'))` loads a library
 * only when the returned function is first called. The rails load their chain libraries this way (`evm/viem.ts`,
 * `solana/solana-libs.ts`), so a process that never touches a chain family never loads its library.
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}
