import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { nestedBorrows } from '../../shared/db/pipelined-transaction';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { MetricsRegistry } from '../../shared/metrics/metrics-registry';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';

/**
 * Prometheus metrics: request count and latency by route and status, database pool figures, (with
 * REDIS_URL) whether rate limits are shared, and (with DATABASE_REPLICA_URLS) the replicas' state and
 * where reads went.
 */
@Injectable()
export class Metrics implements OnModuleInit {
  /** The kernel's registry, which other modules publish to as well. */
  readonly registry: Registry;
  readonly requests: Counter;
  readonly latency: Histogram;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(MetricsRegistry) shared: MetricsRegistry,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
  ) {
    this.registry = shared.registry;
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
  }

  /** One answered request (called once per request by the request lifecycle). */
  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  onModuleInit(): void {
    collectDefaultMetrics({ register: this.registry });
    const pool = () => (this.dataSource.driver as unknown as { master?: { totalCount: number; idleCount: number; waitingCount: number } }).master;
    new Gauge({
      name: 'db_pool_total_connections',
      help: 'Open database connections',
      registers: [this.registry],
      collect() {
        this.set(pool()?.totalCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_idle_connections',
      help: 'Idle database connections',
      registers: [this.registry],
      collect() {
        this.set(pool()?.idleCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_clients',
      help: 'Requests waiting for a database connection',
      registers: [this.registry],
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
    new Counter({
      name: 'db_pool_nested_borrows_total',
      help: 'Database connections borrowed by work that already held one for its own open transaction (each one is a bug: logged as nested_pool_borrow)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(nestedBorrows.total);
      },
    });
    new Counter({
      name: 'db_pool_nested_borrow_waits_total',
      help: 'Of db_pool_nested_borrows_total, those made when the pool had no idle connection and could open none (they waited while holding one)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(nestedBorrows.waited);
      },
    });
    this.replicaMetrics();
    if (this.limiter.redisAvailable === null) return;
    const limiter = this.limiter;
    new Gauge({
      name: 'rate_limit_redis_available',
      help: '1 while rate limits are counted in Redis (shared by every instance), 0 while this process counts its own because Redis is unreachable',
      registers: [this.registry],
      collect() {
        this.set(limiter.redisAvailable ? 1 : 0);
      },
    });
    new Counter({
      name: 'rate_limit_local_fallbacks_total',
      help: 'Rate-limit decisions this process made from its own counts because Redis was unreachable',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(limiter.localFallbacks);
      },
    });
  }

  /** With DATABASE_REPLICA_URLS: each replica's state, and where routed reads went. */
  private replicaMetrics(): void {
    const replicas = this.tx.replicas;
    if (!replicas) return;
    new Gauge({
      name: 'db_replica_usable',
      help: '1 while reads may go to the replica (answering, within DATABASE_REPLICA_MAX_LAG_SECONDS), else 0',
      labelNames: ['replica'],
      registers: [this.registry],
      collect() {
        for (const r of replicas.status()) this.set({ replica: r.name }, r.usable ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How long ago the primary had the oldest position the replica had not replayed at the last check (0: caught up)',
      labelNames: ['replica'],
      registers: [this.registry],
      collect() {
        for (const r of replicas.status()) this.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    new Counter({
      name: 'db_routed_reads_total',
      help: 'Statements of reads that may go to a replica, by where they ran (replica, primary)',
      labelNames: ['target'],
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ target: 'replica' }, replicas.counts.replica);
        this.inc({ target: 'primary' }, replicas.counts.primary);
      },
    });
  }
}
