import { Query } from '@nestjs/cqrs';
import type { CallerContext } from '../../../../shared/auth/request-context';

/** Who a presented key belongs to, or null when it is unknown or revoked. */
export class ResolveApiKeyQuery extends Query<CallerContext | null> {
  constructor(readonly key: string) {
    super();
  }
}
