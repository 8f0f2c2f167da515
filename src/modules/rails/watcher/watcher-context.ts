import type { Logger } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { Clock } from '../../../shared/time/clock';
import type { NetworkConfig } from '../domain/chains-config';
import type { ChainFollower } from '../domain/payment-rail';
import type { ChainIdentity } from './chain-identity';
import type { ChainStateRepository } from '../persistence/chain-state.repository';
import type { DepositAddressesRepository } from '../persistence/deposit-addresses.repository';
import type { UnattributedTransferRow, UnattributedTransfersRepository } from '../persistence/unattributed-transfers.repository';

export interface WatcherDeps {
  dataSource: DataSource;
  /** Reads and single statements outside a transaction. */
  manager: EntityManager;
  run<T>(work: (m: EntityManager) => Promise<T>): Promise<T>;
  commands: CommandBus;
  queries: QueryBus;
  state: ChainStateRepository;
  addresses: DepositAddressesRepository;
  /** Transfers the payments module refused, kept for the merchant to see and retry. */
  unmatched: UnattributedTransfersRepository;
  /** Records `transfer.unmatched` for a transfer kept for the first time, in the writer's transaction. */
  announceUnmatched(m: EntityManager, row: UnattributedTransferRow): Promise<void>;
  clock: Clock;
  lockRetryMs: number;
  /** Transfers of one organization each batch of the confirmation count takes (WORKER_ORG_BATCH). */
  orgBatch: number;
  /** How long, in ms, one step counts confirmations (CHAIN_COUNT_BUDGET_MS); at least one batch each step. */
  countBudgetMs: number;
  /** How long an invoice's addresses stay watched after a reorg cancelled a payment to them (the monitoring window). */
  rewatchMs: number;
  metrics: {
    head: Gauge<'network' | 'mode'>;
    lag: Gauge<'network' | 'mode'>;
    rpcErrors: Counter<'network' | 'mode'>;
    scanSeconds: Histogram<'network' | 'mode'>;
  };
}

/** What the pieces of one network's watcher share: its network, its node, its services and its log. */
export interface WatcherContext {
  config: NetworkConfig;
  follower: ChainFollower;
  identity: ChainIdentity;
  deps: WatcherDeps;
  logger: Logger;
  /** The network and mode, on every log line and metric. */
  labels: { network: string; mode: string };
}

/** The organization's scope in the watcher's mode (a deposit address or transfer row names the organization). */
export function scopeOf(ctx: WatcherContext, organizationId: string): Scope {
  return { organizationId: organizationId as Scope['organizationId'], mode: ctx.config.mode };
}
