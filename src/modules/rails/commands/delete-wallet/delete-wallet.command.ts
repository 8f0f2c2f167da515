import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export interface DeletedWallet {
  id: string;
  deleted: true;
}

/**
 * Removes a receiving wallet: no new address comes from it (payment_address answers
 * no_receiving_wallet until another is registered); addresses already handed out stay watched
 * until their invoice's monitoring window closes.
 */
export class DeleteWalletCommand extends Command<DeletedWallet> {
  constructor(readonly scope: Scope, readonly walletId: string) {
    super();
  }
}
