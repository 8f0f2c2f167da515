/**
 * viem, loaded at its first use rather than when the service starts: its index is about 440 modules, the
 * largest library the service has, and a process without an EVM or Tron network, or that never derives or
 * checks such an address, never needs it. Synchronous (`require`), so the callers (key derivation and
 * address checks, which are synchronous) stay as they are; the first call pays the load once, in that
 * process. Types come from `import type`, which loads nothing.
 */
import { onFirstUse } from '../domain/first-use';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
export const viem = onFirstUse(() => require('viem') as typeof import('viem'));

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
export const viemAccounts = onFirstUse(() => require('viem/accounts') as typeof import('viem/accounts'));
