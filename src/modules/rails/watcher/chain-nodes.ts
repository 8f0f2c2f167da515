import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Metrics } from '../../health';
import type { NetworkConfig, RailMode } from '../domain/chains-config';
import type { ChainFollower } from '../domain/payment-rail';
import { RailRegistry } from '../rail-registry';
import { RailsConfig } from '../rails.config';
import { ChainIdentity, type ChainIdMismatch } from './chain-identity';

interface ChainNode {
  config: NetworkConfig;
  follower: ChainFollower;
  identity: ChainIdentity;
}

/**
 * The nodes of CHAINS_FILE, one per network and mode: the follower the watcher reads it with, and
 * whether it serves the configured chain. Every instance asks each node its chain id at start and
 * every CHAIN_ID_CHECK_SECONDS (an instance that does not watch still hands out addresses, and must
 * not hand out one on a wrong chain); the watcher asks too before it watches.
 */
@Injectable()
export class ChainNodes implements OnModuleDestroy {
  private readonly logger = new Logger('ChainNodes');
  private readonly nodes = new Map<string, ChainNode>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(RailRegistry) registry: RailRegistry,
    @Inject(Metrics) metrics: Metrics,
  ) {
    const mismatch = new Gauge({
      name: 'chain_id_mismatch',
      help: "1 when a network's node answers another chain than CHAINS_FILE names (the network is then not watched), 0 when it answers the configured one",
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
    for (const network of config.chains?.networks ?? []) {
      const follower = registry.followerOf(network);
      this.nodes.set(`${network.mode}:${network.network}`, {
        config: network,
        follower,
        identity: new ChainIdentity(network, follower, config.chainIdCheckMs, mismatch),
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
      }
    };
    askAll();
    this.timer = setInterval(askAll, this.config.chainIdCheckMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
