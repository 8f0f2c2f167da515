import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

export interface ApiKeyView {
  id: string;
  prefix: string;
  mode: Mode;
  read_only: boolean;
  /** The key's label (empty when none). */
  name: string;
  created_at: string;
  revoked_at: string | null;
  /** Set by a roll: when the key stops being accepted (the end of its grace period). */
  expires_at: string | null;
  /** Set by a roll: the id of the key that replaced it. */
  rolled_to: string | null;
  /** When a request last used it (written at most once a minute; null: never). */
  last_used_at: string | null;
}

export class ListApiKeysQuery extends Query<ApiKeyView[]> {
  constructor(readonly organizationId: string) {
    super();
  }
}
