import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ChainFamily } from '../../domain/payment-rail';
import type { WalletView } from '../../dto/wallet.views';

/**
 * Registers a watch-only account key (or, for a family without extended keys, the wallet's address) as the organization's active receiving wallet of a chain
 * family (and network, for a family with a wallet per network), replacing the previous one for new addresses. A private key or a recovery phrase is
 * refused (400 validator.xpub) and never stored or logged.
 */
export class RegisterWalletCommand extends Command<WalletView> {
  constructor(
    readonly scope: Scope,
    readonly chainFamily: ChainFamily,
    readonly xpub: string | null,
    /** The network the key receives on, for a family with a wallet per network (null otherwise). */
    readonly network: string | null = null,
    /** The wallet's address, for a family registered by address (Solana) instead of an account key. */
    readonly address: string | null = null,
  ) {
    super();
  }
}
