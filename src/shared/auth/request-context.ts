import type { OrgId } from '../ids/ids';

export type Mode = 'test' | 'live';
export const MODES: readonly Mode[] = ['test', 'live'];

/** Who is calling: resolved from the API key by the auth guard, read by controllers through @Caller(). */
export interface CallerContext {
  readonly organizationId: OrgId;
  readonly organizationName: string;
  readonly mode: Mode;
  readonly keyId: string;
  readonly keyPrefix: string;
  readonly readOnly: boolean;
  readonly keyCreatedAt: Date;
}

/** A tenant scope that every repository method takes first: organization and mode. */
export interface Scope {
  readonly organizationId: OrgId;
  readonly mode: Mode;
}

export function scopeOf(caller: CallerContext): Scope {
  return { organizationId: caller.organizationId, mode: caller.mode };
}

/** The envelope's `env` follows the key's mode. */
export function envOfMode(mode: Mode): 'development' | 'production' {
  return mode === 'live' ? 'production' : 'development';
}
