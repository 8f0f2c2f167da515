import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { RailRegistry } from '../../rail-registry';
import { SealWalletKeysCommand } from './seal-wallet-keys.command';

@CommandHandler(SealWalletKeysCommand)
export class SealWalletKeysHandler implements ICommandHandler<SealWalletKeysCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<number> {
    let total = 0;
    for (let n = -1; n !== 0;) total += n = await this.tx.run((m) => this.wallets.sealStoredKeys(m, 200));
    // Keys written before fingerprints: fingerprinted, and their counters raised past every index their wallets handed out.
    for (let n = -1; n !== 0;) {
      n = await this.tx.run(async (m) => {
        const rows = await this.wallets.unfingerprinted(m, 200);
        const fingerprints = rows.map((r) => ({ id: r.id, fingerprint: this.rails.keysOf(r.chain_family, r.network, r.mode).fingerprint(r.xpub) }));
        await this.wallets.setFingerprints(m, fingerprints, this.clock.now());
        return rows.length;
      });
    }
    return total;
  }
}
