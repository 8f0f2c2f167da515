import { Command } from '@nestjs/cqrs';

export interface RevokedKeys {
  revoked: Array<{ id: string; prefix: string; organization_id: string }>;
}

/**
 * Revokes a key given in full, or the active key of `organizationId` with the given display prefix.
 * A prefix needs the organization (prefixes are not unique across organizations, so a prefix alone
 * could revoke another organization's key); a full key may name it too, and must then belong to it.
 */
export class RevokeApiKeyCommand extends Command<RevokedKeys> {
  constructor(
    readonly keyOrPrefix: string,
    readonly organizationId?: string,
  ) {
    super();
  }
}
