import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/** Counts hits per bucket in fixed windows; shared across instances when it lives in Redis. */
export interface RateCounter {
  hit(bucket: string, windowMs: number): Promise<WindowCount>;
  peek(bucket: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

class MemoryCounter implements RateCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  private window(bucket: string, windowMs: number, add: number): WindowCount {
    const now = Date.now();
    const start = now - (now % windowMs);
    const key = `${bucket}:${windowMs}`;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 50_000) this.sweep(now);
    }
    w.count += add;
    return { count: w.count, resetMs: start + windowMs - now };
  }

  private sweep(now: number) {
    for (const [key, w] of this.windows) if (w.start + 60_000 < now) this.windows.delete(key);
  }

  hit(bucket: string, windowMs: number) {
    return Promise.resolve(this.window(bucket, windowMs, 1));
  }
  peek(bucket: string, windowMs: number) {
    return Promise.resolve(this.window(bucket, windowMs, 0));
  }
  async close() {}
}

const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) and count > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}`;

class RedisCounter implements RateCounter {
  constructor(private readonly redis: Redis) {}

  private async run(bucket: string, windowMs: number, add: number): Promise<WindowCount> {
    const now = Date.now();
    const key = `ratelimit:${bucket}:${windowMs}:${Math.floor(now / windowMs)}`;
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, key, String(windowMs), String(add))) as [number, number];
    return { count, resetMs: ttl > 0 ? ttl : windowMs - (now % windowMs) };
  }

  hit(bucket: string, windowMs: number) {
    return this.run(bucket, windowMs, 1);
  }
  peek(bucket: string, windowMs: number) {
    return this.run(bucket, windowMs, 0);
  }
  close() {
    this.redis.disconnect();
    return Promise.resolve();
  }
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Request budgets: per API key (by mode), per client address for keyless calls, and a budget of
 * failed authentications per client address that slows key guessing. With REDIS_URL every
 * instance draws from the same budget; without it each process counts its own. When Redis is
 * unreachable the limiter lets requests through (and logs it) rather than failing them.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly counter: RateCounter;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    if (config.REDIS_URL) {
      const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
      redis.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'redis connection error'));
      this.counter = new RedisCounter(redis);
    } else {
      this.counter = new MemoryCounter();
    }
  }

  get enabled(): boolean {
    return this.config.RATE_LIMIT_ENABLED;
  }

  /** `count`: this request is one of the counted (allowed while within the limit); else only look (allowed while below it). */
  private async decide(bucket: string, limit: number, windowMs: number, count: boolean): Promise<LimitDecision> {
    try {
      const w = count ? await this.counter.hit(bucket, windowMs) : await this.counter.peek(bucket, windowMs);
      const allowed = count ? w.count <= limit : w.count < limit;
      return { allowed, limit, remaining: Math.max(0, limit - w.count), resetSeconds: Math.max(1, Math.ceil(w.resetMs / 1000)) };
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'rate limit store unavailable; request let through');
      return { allowed: true, limit, remaining: limit, resetSeconds: 1 };
    }
  }

  forKey(keyId: string, mode: 'test' | 'live'): Promise<LimitDecision> {
    return this.decide(`key:${keyId}`, mode === 'live' ? this.config.RATE_LIMIT_LIVE : this.config.RATE_LIMIT_TEST, this.config.RATE_LIMIT_WINDOW_MS, true);
  }

  forAnonymous(client: string): Promise<LimitDecision> {
    return this.decide(`ip:${client}`, this.config.RATE_LIMIT_ANONYMOUS, this.config.RATE_LIMIT_WINDOW_MS, true);
  }

  /** Whether this client address is still allowed to present keys (too many failures block it for a minute). */
  authFailuresAllowed(client: string): Promise<LimitDecision> {
    return this.decide(`authfail:${client}`, this.config.RATE_LIMIT_AUTH_FAILURES, 60_000, false);
  }

  recordAuthFailure(client: string): Promise<LimitDecision> {
    return this.decide(`authfail:${client}`, this.config.RATE_LIMIT_AUTH_FAILURES, 60_000, true);
  }

  /**
   * Whether this client address may still try an X-Admin-Token this minute (ADMIN_AUTH_FAILURES
   * failures block it, a correct token included, until the minute ends). Counted per address only:
   * other addresses' failures never block an operator, and the token's length makes guessing from
   * many addresses hopeless anyway. Applies even with RATE_LIMIT_ENABLED=false.
   */
  adminAttemptsAllowed(client: string): Promise<LimitDecision> {
    return this.decide(`adminfail:${client}`, this.config.ADMIN_AUTH_FAILURES, 60_000, false);
  }

  recordAdminFailure(client: string): Promise<LimitDecision> {
    return this.decide(`adminfail:${client}`, this.config.ADMIN_AUTH_FAILURES, 60_000, true);
  }

  async onModuleDestroy(): Promise<void> {
    await this.counter.close();
  }
}
