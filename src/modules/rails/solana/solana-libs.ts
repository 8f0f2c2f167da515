/**
 * Solana's client libraries (`@solana/kit`, `@solana-program/token`), loaded at their first use rather than
 * when the service or the CLI starts, as viem is (`../evm/viem.ts`): a process with no Solana network that never
 * checks a Solana address or makes a reference never needs them, and every start paid for them (about 70
 * modules, 80 ms). Synchronous (`require`), so the callers (address checks, reference keys) keep their
 * signatures; the first call pays the load once, in that process. Types come from `import type`, which loads
 * nothing.
 */
import { onFirstUse } from '../domain/first-use';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
export const solanaKit = onFirstUse(() => require('@solana/kit') as typeof import('@solana/kit'));

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
export const solanaToken = onFirstUse(() => require('@solana-program/token') as typeof import('@solana-program/token'));
