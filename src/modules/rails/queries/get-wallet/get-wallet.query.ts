import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { WalletView } from '../../dto/wallet.views';

/** One receiving wallet of the caller's organization and mode (NotFoundError otherwise). */
export class GetWalletQuery extends Query<WalletView> {
  constructor(readonly scope: Scope, readonly walletId: string) {
    super();
  }
}
