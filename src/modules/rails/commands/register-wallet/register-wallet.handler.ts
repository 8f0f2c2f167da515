import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { walletView, WalletView } from '../../dto/wallet.views';
import { WalletRow, WalletsRepository } from '../../persistence/wallets.repository';
import { RailRegistry } from '../../rail-registry';
import { RegisterWalletCommand } from './register-wallet.command';

const KEY_HELD_ELSEWHERE = 'is registered by another organization; register another account of your wallet (another account number gives another key)';
const ADDRESS_HELD_ELSEWHERE = 'is registered by another organization; register another wallet address';

@CommandHandler(RegisterWalletCommand)
export class RegisterWalletHandler implements ICommandHandler<RegisterWalletCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, chainFamily, xpub: xpubGiven, network: given, address }: RegisterWalletCommand): Promise<WalletView> {
    const adapter = this.rails.adapter(chainFamily);
    // The family's field (an account key, or a wallet address where the family has no extended keys), and not the other.
    const field = adapter.walletField ?? 'xpub';
    const other = field === 'xpub' ? 'address' : 'xpub';
    if ((field === 'xpub' ? address : xpubGiven) != null) {
      throw new ValidationFailedError({
        [other]: `is not taken for chain_family ${chainFamily}: send ${field === 'xpub' ? 'the account key as xpub' : 'the wallet address as address'}`,
      });
    }
    const xpub = field === 'xpub' ? xpubGiven : address;
    if (xpub == null) throw new ValidationFailedError({ [field]: `is required for chain_family ${chainFamily}` });
    const code = field === 'xpub' ? 'invalid_xpub' : 'invalid_address';
    const network = adapter.walletPerNetwork ? given : null;
    if (adapter.walletPerNetwork && (network === null || !adapter.networks.includes(network))) {
      throw new ValidationFailedError({
        network: `${network === null ? 'is required' : 'must be one of'} for chain_family ${chainFamily}: ${adapter.networks.join(', ')}`,
      });
    }
    if (!adapter.walletPerNetwork && given !== null) {
      throw new ValidationFailedError({
        network: `is not taken for chain_family ${chainFamily}: one key serves all its networks (${adapter.networks.join(', ')})`,
      });
    }
    const check = this.rails.keysOf(chainFamily, network, scope.mode).checkAccountKey(xpub);
    // The message names the field and the problem, never the text that was sent.
    if (!check.ok) throw new ValidationFailedError({ [field]: check.problem }, `Invalid request: ${field} ${check.problem}`, code);
    const now = this.clock.now();
    const row: WalletRow = {
      id: newId('wallet'),
      organization_id: scope.organizationId,
      mode: scope.mode,
      chain_family: chainFamily,
      network,
      xpub: check.key.text,
      key_fingerprint: check.key.fingerprint,
      first_address: check.key.firstAddress,
      next_index: 0,
      unused_gap: 0,
      active: true,
      created_at: now,
      replaced_at: null,
    };
    await this.tx.run(async (m) => {
      await this.wallets.lockFamily(m, scope, chainFamily, network);
      // The key's address counter is the key's: another organization holding it could use up its indexes
      // and read how many were issued. Which organization holds it is not said.
      if (await this.wallets.keyHeldElsewhere(m, scope.organizationId, chainFamily, check.key.fingerprint)) {
        const held = field === 'xpub' ? KEY_HELD_ELSEWHERE : ADDRESS_HELD_ELSEWHERE;
        throw new ValidationFailedError({ [field]: held }, `Invalid request: ${field} ${held}`, code);
      }
      await this.wallets.insertActive(m, row);
    });
    return walletView(row);
  }
}
