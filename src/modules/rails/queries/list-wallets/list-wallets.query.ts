import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { WalletView } from '../../dto/wallet.views';

export interface WalletList {
  items: WalletView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

/** The organization's receiving wallets in one mode (active and replaced; deleted ones are gone), newest first. */
export class ListWalletsQuery extends Query<WalletList> {
  constructor(readonly scope: Scope, readonly limit: number, readonly offset: number) {
    super();
  }
}
