import { Command } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { IssuedKey } from '../create-api-key/create-api-key.command';

export interface RolledKey {
  /** The new key (its secret shown once), with the old key's name, mode and access. */
  issued: IssuedKey;
  /** The old key: accepted until `expires_at`, then refused. */
  previous: { id: string; prefix: string; expires_at: string };
}

/**
 * Rolls a key of the organization in `mode`: a new key with the same name, mode and access, and the
 * old key kept working for `graceSeconds` (0: it stops at once). Another organization's or mode's
 * key id is a 404; a revoked key, or one already rolled, cannot be rolled (400, `status`).
 */
export class RollApiKeyCommand extends Command<RolledKey> {
  constructor(
    readonly organizationId: string,
    readonly mode: Mode,
    readonly keyId: string,
    readonly graceSeconds: number,
  ) {
    super();
  }
}
