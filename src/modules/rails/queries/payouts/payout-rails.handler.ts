import { Inject, Logger } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { networkOf } from '../../domain/chains-config';
import { RailsConfig } from '../../rails.config';
import { ChainNodes } from '../../watcher/chain-nodes';
import { CheckPayoutQuery, ListPayoutRailsQuery, PayoutCheck, PayoutRail } from './payout-rails.query';

/**
 * The payout rails of a mode, from CHAINS_FILE (read once at start): the networks whose follower can
 * read a payout transaction (`ChainFollower.transactionTransfers`; EVM and UTXO followers both do).
 * The chain id is the one the node's chain is numbered by (EVM), null where the chain has a name
 * instead (UTXO: main, test, regtest).
 */
@QueryHandler(ListPayoutRailsQuery)
export class ListPayoutRailsHandler implements IQueryHandler<ListPayoutRailsQuery> {
  constructor(@Inject(ChainNodes) private readonly nodes: ChainNodes) {}

  execute({ mode }: ListPayoutRailsQuery): Promise<PayoutRail[]> {
    const out: PayoutRail[] = [];
    for (const { config: n, follower } of this.nodes.all()) {
      if (n.mode !== mode || !follower.transactionTransfers) continue;
      const family = n.family as PayoutRail['family'];
      const chainId = /^\d+$/.test(n.chain) ? Number(n.chain) : null;
      out.push({ providerId: n.providerOf(null), family, network: n.network, chainId, token: null });
      for (const [slug, contract] of Object.entries(n.assets)) {
        out.push({ providerId: n.providerOf(slug), family, network: n.network, chainId, token: contract.toLowerCase() });
      }
    }
    return Promise.resolve(out);
  }
}

/** Reads a reported payout transaction through the network's node client (the watcher's). */
@QueryHandler(CheckPayoutQuery)
export class CheckPayoutHandler implements IQueryHandler<CheckPayoutQuery> {
  private readonly logger = new Logger('PayoutCheck');

  constructor(
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(ChainNodes) private readonly nodes: ChainNodes,
  ) {}

  async execute({ mode, network, txHash, to, token }: CheckPayoutQuery): Promise<PayoutCheck> {
    const node = networkOf(this.config.chains, mode, network)
      ? this.nodes.all().find((n) => n.config.mode === mode && n.config.network === network)
      : undefined;
    if (!node || this.nodes.mismatchOf(mode, network)) return { state: 'unavailable' };
    try {
      if (!node.follower.transactionTransfers) return { state: 'unavailable' };
      const tx = await node.follower.transactionTransfers(txHash, to, token);
      if (!tx) return { state: 'unknown' };
      const head = await node.follower.head();
      const confirmations = head >= tx.blockNumber ? Number(head - tx.blockNumber + 1n) : 0;
      if (!tx.success) return { state: 'failed', confirmations };
      return { state: 'mined', confirmations, paidUnits: tx.units.toString() };
    } catch (error) {
      this.logger.warn({
        msg: 'payout check failed; asked again later',
        event: 'payout_check_failed',
        network,
        mode,
        error: (error as Error)?.message?.split('\n')[0],
      });
      return { state: 'unavailable' };
    }
  }
}
