import { AppConfig } from '../../../shared/config/app-config';
import { Inject, Injectable, Logger, OnModuleDestroy, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../../shared/lifecycle/background-work';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Counter, Gauge, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { TransactionRunner } from '../../../shared/db/transaction-runner';
import { EventOutbox } from '../../../shared/events/outbox';
import { Clock } from '../../../shared/time/clock';
import { MetricsRegistry } from '../../../shared/metrics/metrics-registry';
import { InvoicesConfig } from '../../invoices';
import { unmatchedTransferView } from '../dto/unmatched.views';
import { ChainStateRepository } from '../persistence/chain-state.repository';
import { DepositAddressesRepository } from '../persistence/deposit-addresses.repository';
import { UnattributedTransfersRepository } from '../persistence/unattributed-transfers.repository';
import { RailRegistry } from '../rail-registry';
import { RailsConfig } from '../rails.config';
import { ChainNodes } from './chain-nodes';
import { NetworkWatcher } from './network-watcher';
import { TRANSFER_EVENTS } from '../events/transfer.events';

/**
 * The chain watchers of this instance: one per network and mode of CHAINS_FILE, each of which only
 * works while it holds that network's lock (exactly one instance watches a network at a time).
 * Started after the migrations (main.ts); stopped on shutdown. Readiness does not depend on them.
 */
@Injectable()
export class ChainWatchers implements OnModuleDestroy, OnApplicationBootstrap {
  private readonly logger = new Logger('ChainWatchers');
  private readonly watchers: NetworkWatcher[] = [];
  private readonly head: Gauge<'network' | 'mode'>;
  private readonly lag: Gauge<'network' | 'mode'>;
  private readonly rpcErrors: Counter<'network' | 'mode'>;
  private readonly scanSeconds: Histogram<'network' | 'mode'>;

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(InvoicesConfig) private readonly invoices: InvoicesConfig,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ChainStateRepository) private readonly state: ChainStateRepository,
    @Inject(DepositAddressesRepository) private readonly addresses: DepositAddressesRepository,
    @Inject(UnattributedTransfersRepository) private readonly unmatched: UnattributedTransfersRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ChainNodes) private readonly nodes: ChainNodes,
    @Inject(AppConfig) private readonly app: AppConfig,
    @Inject(MetricsRegistry) metrics: MetricsRegistry,
  ) {
    this.head = new Gauge({
      name: 'chain_head_block',
      help: 'Latest block number the chain node reported',
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
    this.lag = new Gauge({
      name: 'chain_lag_blocks',
      help: 'Blocks between the chain head and the last block whose transfers were recorded',
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
    this.scanSeconds = new Histogram({
      name: 'chain_scan_seconds',
      help: 'Duration of one scan of a block range (addresses loaded, RPC calls, payments recorded, cursor moved)',
      labelNames: ['network', 'mode'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
    this.rpcErrors = new Counter({
      name: 'chain_rpc_errors_total',
      help: 'Failed JSON-RPC calls to chain nodes (retried with backoff)',
      labelNames: ['network', 'mode'],
      registers: [metrics.registry],
    });
  }

  /** Starts with the service's background work (after the migrations; never in the CLI). */
  onApplicationBootstrap(): void {
    this.work.whenReady('chain-watchers', () => this.start());
  }

  start(): void {
    // Every instance checks the nodes' chain ids: one that only hands out addresses must know too.
    this.nodes.start();
    const nodes = this.nodes.all();
    if (!nodes.length || !this.config.watcherEnabled || this.watchers.length) return;
    for (const { config: network, follower, identity } of nodes) {
      const watcher = new NetworkWatcher(network, follower, identity, {
        dataSource: this.dataSource,
        manager: this.tx.manager,
        run: (work) => this.tx.run(work),
        commands: this.commands,
        queries: this.queries,
        state: this.state,
        addresses: this.addresses,
        unmatched: this.unmatched,
        announceUnmatched: async (m, row) => {
          const scope: Scope = { organizationId: row.organization_id as Scope['organizationId'], mode: row.mode };
          await this.outbox.record(
            m,
            scope,
            TRANSFER_EVENTS['transfer.unmatched'],
            unmatchedTransferView(row, (a) => this.rails.displayAddress(row.network, row.mode, a)),
          );
        },
        clock: this.clock,
        lockRetryMs: this.config.lockRetryMs,
        orgBatch: this.app.WORKER_ORG_BATCH,
        countBudgetMs: this.config.countBudgetMs,
        rewatchMs: this.invoices.INVOICE_MONITORING_MINUTES * 60_000,
        metrics: { head: this.head, lag: this.lag, rpcErrors: this.rpcErrors, scanSeconds: this.scanSeconds },
      });
      this.watchers.push(watcher);
      watcher.start();
    }
    this.logger.log({ msg: 'chain watchers started', networks: nodes.map((n) => `${n.config.mode}/${n.config.network}`) });
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.stop()));
  }
}
