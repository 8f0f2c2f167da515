import { Command } from '@nestjs/cqrs';

export interface RevokedKeys {
  revoked: Array<{ id: string; prefix: string; organization_id: string }>;
}

/** Revokes a key given in full, or every active key with the given display prefix. */
export class RevokeApiKeyCommand extends Command<RevokedKeys> {
  constructor(readonly keyOrPrefix: string) {
    super();
  }
}
