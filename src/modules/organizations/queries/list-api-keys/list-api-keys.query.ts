import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

export interface ApiKeyView {
  id: string;
  prefix: string;
  mode: Mode;
  read_only: boolean;
  created_at: string;
  revoked_at: string | null;
}

export class ListApiKeysQuery extends Query<ApiKeyView[]> {
  constructor(readonly organizationId: string) {
    super();
  }
}
