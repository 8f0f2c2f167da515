import { Inject, Logger } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { networkOf } from '../../domain/chains-config';
import { ChainStateRepository } from '../../persistence/chain-state.repository';
import { RailsConfig } from '../../rails.config';
import { ChainNodes } from '../../watcher/chain-nodes';
import { CheckPayoutQuery, ListPayoutRailsQuery, PayoutChainTipQuery, PayoutCheck, PayoutRail } from './payout-rails.query';

/**
 * The payout rails of a mode, from CHAINS_FILE (read once at start): every provider a configured network
 * carries (each family's follower reads payout transactions, `ChainFollower.transactionTransfers`), with the family
 * its adapter registered. The chain id is the one the node's chain is numbered by (EVM, Tron), null where
 * the chain has a name instead (UTXO: main, test, regtest).
 */
@QueryHandler(ListPayoutRailsQuery)
export class ListPayoutRailsHandler implements IQueryHandler<ListPayoutRailsQuery> {
  constructor(@Inject(ChainNodes) private readonly nodes: ChainNodes) {}

  execute({ mode }: ListPayoutRailsQuery): Promise<PayoutRail[]> {
    const out: PayoutRail[] = [];
    for (const { config: n } of this.nodes.all()) {
      if (n.mode !== mode) continue;
      const family = n.family;
      const chainId = /^\d+$/.test(n.chain) ? Number(n.chain) : null;
      // The coin only where the section takes it (Tron's TRX needs `http_api_url`): a payout the node's
      // follower cannot see must not be offered, or every report of it would be judged short.
      if (n.providers.includes(n.providerOf(null))) out.push({ providerId: n.providerOf(null), family, network: n.network, chainId, token: null });
      for (const [slug, contract] of Object.entries(n.assets)) {
        out.push({ providerId: n.providerOf(slug), family, network: n.network, chainId, token: contract });
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
    const node = payoutNode(this.config, this.nodes, mode, network);
    if (!node) return { state: 'unavailable' };
    try {
      const tx = await node.follower.transactionTransfers(txHash, to, token);
      if (!tx) return { state: 'unknown', showsUnmined: node.follower.showsUnmined === true };
      if (tx.blockNumber === null) return { state: 'pending' };
      const head = await node.follower.head();
      const confirmations = head >= tx.blockNumber ? Number(head - tx.blockNumber + 1n) : 0;
      const blockNumber = tx.blockNumber.toString();
      if (!tx.success) return { state: 'failed', confirmations, blockNumber };
      const paid = tx.transfers.reduce((sum, t) => sum + t.units, 0n);
      return {
        state: 'mined',
        confirmations,
        blockNumber,
        paidUnits: paid.toString(),
        transfers: tx.transfers.map((t) => ({ output: t.output, ...(t.formerly ? { formerly: t.formerly } : {}), units: t.units.toString() })),
        ...(tx.byDestination ? { byDestination: true } : {}),
      };
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

/**
 * The chain tip of a payout rail: the node's head when asked (the watcher's cursor may lag behind), but
 * never below the block the watcher has read up to. A node behind (restarted to reindex, a lagging instance
 * behind a load balancer) answers a low head; taken as the tip, a payer's older deposit to the address,
 * mined above it, would pass for the payout. So the higher of the two.
 */
@QueryHandler(PayoutChainTipQuery)
export class PayoutChainTipHandler implements IQueryHandler<PayoutChainTipQuery> {
  private readonly logger = new Logger('PayoutCheck');

  constructor(
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(ChainNodes) private readonly nodes: ChainNodes,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ChainStateRepository) private readonly state: ChainStateRepository,
  ) {}

  async execute({ mode, network }: PayoutChainTipQuery): Promise<string | null> {
    const node = payoutNode(this.config, this.nodes, mode, network);
    if (!node) return null;
    try {
      const [head, cursor] = await Promise.all([node.follower.head(), this.state.cursor(this.tx.manager, mode, network)]);
      if (cursor && cursor.number > head) {
        this.logger.warn({
          msg: "node behind the watcher: the tip taken is the watcher's",
          event: 'payout_tip_behind',
          network,
          mode,
          head: head.toString(),
          cursor: cursor.number.toString(),
        });
        return cursor.number.toString();
      }
      return head.toString();
    } catch (error) {
      this.logger.warn({ msg: 'chain tip not read', event: 'payout_tip_failed', network, mode, error: (error as Error)?.message?.split('\n')[0] });
      return null;
    }
  }
}

/** The node of a configured network of the mode, unless it serves another chain than CHAINS_FILE names. */
function payoutNode(config: RailsConfig, nodes: ChainNodes, mode: PayoutChainTipQuery['mode'], network: string) {
  const node = networkOf(config.chains, mode, network) ? nodes.all().find((n) => n.config.mode === mode && n.config.network === network) : undefined;
  return !node || nodes.mismatchOf(mode, network) ? undefined : node;
}
