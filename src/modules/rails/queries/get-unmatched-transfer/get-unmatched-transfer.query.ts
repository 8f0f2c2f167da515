import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { UnmatchedTransferView } from '../../dto/unmatched.views';

/** One unmatched transfer of the organization in its mode; NotFoundError otherwise (another organization's or mode's included). */
export class GetUnmatchedTransferQuery extends Query<UnmatchedTransferView> {
  constructor(
    readonly scope: Scope,
    readonly id: string,
  ) {
    super();
  }
}
