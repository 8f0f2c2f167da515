import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from '../../../shared/metrics/metrics-registry';
import type { NetworkConfig, RailMode } from '../domain/chains-config';
import type { ChainFollower } from '../domain/payment-rail';
import { RailRegistry } from '../rail-registry';
import { RailsConfig } from '../rails.config';
import { ChainIdentity, type ChainIdMismatch } from './chain-identity';

interface ChainNode {
  config: NetworkConfig;
  follower: ChainFollower;
  identity: ChainIdentity;
  /** Whether the node's transaction index was asked (or is being asked) already: once per process. */
  indexAsked: boolean;
}

/**
 * The nodes of CHAINS_FILE, one per network and mode: the follower the watcher reads it with, and
 * whether it serves the configured chain. Every instance asks each node its chain id at start and
 * every CHAIN_ID_CHECK_SECONDS (an instance that does not watch still hands out addresses, and must
 * not hand out one on a wrong chain); the watcher asks too before it watches. A node whose follower
 * needs a transaction index (UTXO, `txindex=1`) is asked once whether it keeps one; one that does not
 * is a warning (`utxo_txindex_missing`, log and gauge), not a refusal: payments are still found by
 * their blocks, but a payment whose address is no longer watched is not found again after a reorg,
 * and a refund's payout sent from another wallet than the node's is never confirmed.
 */
@Injectable()
export class ChainNodes implements OnModuleDestroy {
  private readonly logger = new Logger('ChainNodes');
  private readonly nodes = new Map<string, ChainNode>();
  private timer: NodeJS.Timeout | null = null;
  private readonly txindexMissing: Gauge<'network' | 'mode'>;

  constructor(
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(RailRegistry) registry: RailRegistry,
    @Inject(MetricsRegistry) metrics: MetricsRegistry,
  ) {
    const mismatch = new Gauge({
      name: 'chain_id_mismatch',
      help: "1 when a network's node answers another chain than CHAINS_FILE names (the network is then not watched), 0 when it answers the configured one",
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
    this.txindexMissing = new Gauge({
      name: 'utxo_txindex_missing',
      help: "1 when a UTXO network's node runs without txindex=1 (mined transactions are not found by id), 0 when it keeps the index",
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
    for (const network of config.chains?.networks ?? []) {
      const follower = registry.followerOf(network);
      this.nodes.set(`${network.mode}:${network.network}`, {
        config: network,
        follower,
        identity: new ChainIdentity(network, follower, config.chainIdCheckMs, mismatch),
        indexAsked: false,
      });
    }
  }

  all(): ChainNode[] {
    return [...this.nodes.values()];
  }

  /** The node's chain id differs from the configured one (as last answered), or null. */
  mismatchOf(mode: RailMode, network: string): ChainIdMismatch | null {
    return this.nodes.get(`${mode}:${network}`)?.identity.mismatch ?? null;
  }

  /** Asks every node now, then every CHAIN_ID_CHECK_SECONDS. */
  start(): void {
    if (this.timer || !this.nodes.size) return;
    const askAll = () => {
      for (const node of this.nodes.values()) {
        node.identity.ask().catch((error: unknown) =>
          this.logger.debug({
            msg: 'chain id check failed; asked again later',
            event: 'chain_id_check_failed',
            network: node.config.network,
            mode: node.config.mode,
            error: (error as Error)?.message?.split('\n')[0],
          }),
        );
        if (!node.indexAsked) this.askTransactionIndex(node);
      }
    };
    askAll();
    this.timer = setInterval(askAll, this.config.chainIdCheckMs);
    this.timer.unref();
  }

  /** Asks a node once whether it keeps its transaction index (again at the next check when it did not answer). */
  private askTransactionIndex(node: ChainNode): void {
    const ask = node.follower.transactionIndex?.bind(node.follower);
    if (!ask) return;
    node.indexAsked = true;
    const labels = { network: node.config.network, mode: node.config.mode };
    ask().then(
      (kept) => {
        if (kept === null) {
          this.logger.warn({
            msg: `the ${labels.mode} ${labels.network} node cannot say whether it runs with txindex=1 (no getindexinfo); make sure it does`,
            event: 'utxo_txindex_unknown',
            ...labels,
          });
          return;
        }
        this.txindexMissing.set(labels, kept ? 0 : 1);
        if (!kept) {
          this.logger.warn({
            msg: `the ${labels.mode} ${labels.network} node runs without txindex=1: a payment whose address is no longer watched is not found again after a reorg (it is cancelled), and a refund payout sent from another wallet than the node's is never confirmed; restart the node with txindex=1`,
            event: 'utxo_txindex_missing',
            ...labels,
          });
        }
      },
      (error: unknown) => {
        node.indexAsked = false;
        this.logger.debug({
          msg: 'transaction index check failed; asked again later',
          event: 'utxo_txindex_check_failed',
          ...labels,
          error: (error as Error)?.message?.split('\n')[0],
        });
      },
    );
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
