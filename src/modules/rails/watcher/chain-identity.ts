import { Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import type { NetworkConfig } from '../domain/chains-config';
import type { ChainFollower } from '../domain/payment-rail';

/** A node that answers another chain than CHAINS_FILE names for its network. */
export interface ChainIdMismatch {
  expected: string;
  actual: string;
}

/**
 * Whether one network's node serves the chain CHAINS_FILE names for it (its adapter asks the node), asked at start
 * and again when the last answer is older than the check interval. Until the node says the configured
 * chain, its network is not watched (nothing recorded); while it says another, no deposit address is
 * handed out for it either. Concurrent askers share one call.
 */
export class ChainIdentity {
  private readonly logger: Logger;
  private readonly labels: { network: string; mode: string };
  private answer: string | null = null;
  private answeredAt = -Infinity;
  private asking: Promise<string> | null = null;

  constructor(
    private readonly config: NetworkConfig,
    private readonly follower: Pick<ChainFollower, 'chain'>,
    readonly intervalMs: number,
    private readonly mismatchGauge: Gauge<'network' | 'mode'>,
  ) {
    this.logger = new Logger(`ChainWatcher ${config.mode}/${config.network}`);
    this.labels = { network: config.network, mode: config.mode };
  }

  /** The node's last answer differs from the configured chain (null: it matched, or no answer yet). */
  get mismatch(): ChainIdMismatch | null {
    return this.answer !== null && this.answer !== this.config.chain ? { expected: this.config.chain, actual: this.answer } : null;
  }

  /** True when the node serves the configured chain; asks it when the last answer is due for a check (RPC faults are thrown). */
  async matches(now = Date.now()): Promise<boolean> {
    if (this.answer === null || now - this.answeredAt >= this.intervalMs) await this.ask();
    return this.answer === this.config.chain;
  }

  /** Asks the node now (one call for concurrent askers). */
  async ask(): Promise<string> {
    this.asking ??= this.follower
      .chain()
      .then((actual) => {
        this.record(actual);
        return actual;
      })
      .finally(() => (this.asking = null));
    return this.asking;
  }

  private record(actual: string): void {
    const before = this.answer;
    this.answer = actual;
    this.answeredAt = Date.now();
    const wrong = actual !== this.config.chain;
    this.mismatchGauge.set(this.labels, wrong ? 1 : 0);
    if (wrong) {
      this.logger.error({
        msg: `the ${this.config.mode} ${this.config.network} node serves chain ${actual}, not chain ${this.config.chain} as CHAINS_FILE says: the network is not watched and hands out no deposit addresses until it does`,
        event: 'chain_id_mismatch',
        ...this.labels,
        expected_chain: this.config.chain,
        actual_chain: actual,
      });
    } else if (before !== null && before !== actual) {
      this.logger.log({ msg: 'the node serves the configured chain again', event: 'chain_id_matches', ...this.labels, chain: actual });
    }
  }
}
