import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { nestedBorrows } from '../../shared/db/pipelined-transaction';
import { MetricsRegistry } from '../../shared/metrics/metrics-registry';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';

/** Prometheus metrics: request count and latency by route and status, database pool figures, and (with REDIS_URL) whether rate limits are shared. */
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
}
