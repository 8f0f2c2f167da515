import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { MemoryCounter, type RateCounter, type WindowCount } from './memory-counter';

export type { RateCounter, WindowCount } from './memory-counter';

// A key without an expiry gets the window's, whoever made it: a peek (INCRBY 0) on a new window creates
// the key too, and one left without an expiry would stay in Redis for good.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count < 0 then
  redis.call('INCRBY', KEYS[1], -count)
  count = 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

/**
 * HIT_SCRIPT for two keys at once (KEYS[1], KEYS[2]; ARGV[1] the window, ARGV[2] the first key's limit):
 * {count1, ttl1, count2, ttl2}. The second is counted only while the first is within its limit (else only
 * looked at): a request its own bucket refuses takes nothing of the shared one.
 */
const HIT_PAIR_SCRIPT = `
local out = {}
local add = 1
for i = 1, 2 do
  local count = redis.call('INCRBY', KEYS[i], add)
  if i == 1 and count > tonumber(ARGV[2]) then add = 0 end
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out`;

/** How often a Redis that stopped answering on an open connection is asked again (a reconnect is noticed at once). */
const PROBE_INTERVAL_MS = 1000;

/**
 * Counts in Redis while it answers, and in this process's memory while it does not, so that every
 * budget keeps holding (per process) through an outage and no request waits on Redis: a command is
 * never queued for a later connection (no offline queue) and gives up after REDIS_COMMAND_TIMEOUT_MS.
 * ioredis reconnects in the background; once Redis is ready again (or, after a timeout on an open
 * connection, answers a PING), the shared counts are used again. The change is logged once each way.
 */
class RedisWithFallback implements RateCounter {
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private probe: NodeJS.Timeout | null = null;
  private closing = false;
  /** Decisions made from the local counts because Redis was not available. */
  fallbacks = 0;

  constructor(
    private readonly redis: Redis,
    private readonly local: MemoryCounter,
    private readonly logger: Logger,
  ) {
    redis.on('ready', () => this.markUp());
    // Every failed reconnect attempt emits an error; the state change below logs only the first.
    redis.on('error', (e: Error) => this.markDown(e.message));
    redis.on('close', () => this.markDown('connection closed'));
  }

  get available(): boolean {
    return this.state === 'up';
  }

  private markUp() {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    if (this.state === 'down') this.logger.log('Redis answers again: rate limits are shared by every instance again');
    this.state = 'up';
  }

  private markDown(reason: string) {
    if (this.closing || this.state === 'down') return;
    this.state = 'down';
    this.logger.warn({ err: reason }, 'Redis unreachable: rate limits are counted in each process until it answers again');
    this.probe = setInterval(() => {
      if (this.redis.status === 'ready')
        this.redis.ping().then(
          () => this.markUp(),
          () => undefined,
        );
    }, PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async run(bucket: string, windowMs: number, add: number): Promise<WindowCount> {
    if (this.state === 'up') {
      const now = Date.now();
      const key = `ratelimit:${bucket}:${windowMs}:${Math.floor(now / windowMs)}`;
      try {
        const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, key, String(windowMs), String(add))) as [number, number];
        return { count, resetMs: ttl > 0 ? ttl : windowMs - (now % windowMs) };
      } catch (e) {
        this.markDown((e as Error).message);
      }
    }
    this.fallbacks++;
    return this.local.window(bucket, windowMs, add);
  }

  hit(bucket: string, windowMs: number) {
    return this.run(bucket, windowMs, 1);
  }
  async hitPair(first: string, second: string, windowMs: number, firstLimit: number): Promise<[WindowCount, WindowCount]> {
    if (this.state === 'up') {
      const now = Date.now();
      const slot = Math.floor(now / windowMs);
      const left = windowMs - (now % windowMs);
      try {
        const [c1, t1, c2, t2] = (await this.redis.eval(
          HIT_PAIR_SCRIPT,
          2,
          `ratelimit:${first}:${windowMs}:${slot}`,
          `ratelimit:${second}:${windowMs}:${slot}`,
          String(windowMs),
          String(firstLimit),
        )) as [number, number, number, number];
        return [
          { count: c1, resetMs: t1 > 0 ? t1 : left },
          { count: c2, resetMs: t2 > 0 ? t2 : left },
        ];
      } catch (e) {
        this.markDown((e as Error).message);
      }
    }
    this.fallbacks++;
    return this.local.hitPair(first, second, windowMs, firstLimit);
  }
  unhit(bucket: string, windowMs: number) {
    return this.run(bucket, windowMs, -1);
  }
  peek(bucket: string, windowMs: number) {
    return this.run(bucket, windowMs, 0);
  }
  close() {
    this.closing = true;
    if (this.probe) clearInterval(this.probe);
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
 * instance draws from the same budget; without it each process counts its own. While Redis is
 * unreachable each process counts its own again (see RedisWithFallback): the limits still hold, per
 * process, and requests do not wait for Redis.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly counter: RateCounter;
  private readonly shared: RedisWithFallback | null = null;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    if (config.REDIS_URL) {
      const redis = new Redis(config.REDIS_URL, {
        // A request never waits for a connection: without one, the command fails at once and the local count decides.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS,
        // Only how long each background connection attempt may take; no request waits for it.
        connectTimeout: 2000,
      });
      this.shared = new RedisWithFallback(redis, new MemoryCounter(), this.logger);
      this.counter = this.shared;
    } else {
      this.counter = new MemoryCounter();
    }
  }

  /** With REDIS_URL: whether the shared counts are in use (false while each process counts its own). Null without REDIS_URL. */
  get redisAvailable(): boolean | null {
    return this.shared ? this.shared.available : null;
  }

  /** With REDIS_URL: decisions this process made from its own counts because Redis was unreachable. */
  get localFallbacks(): number {
    return this.shared?.fallbacks ?? 0;
  }

  get enabled(): boolean {
    return this.config.RATE_LIMIT_ENABLED;
  }

  /** `count`: this request is one of the counted (allowed while within the limit); else only look (allowed while below it). */
  private async decide(bucket: string, limit: number, windowMs: number, count: boolean): Promise<LimitDecision> {
    const w = count ? await this.counter.hit(bucket, windowMs) : await this.counter.peek(bucket, windowMs);
    return count ? decision(w, limit) : { ...decision(w, limit), allowed: w.count < limit };
  }

  forKey(keyId: string, mode: 'test' | 'live'): Promise<LimitDecision> {
    return this.decide(`key:${keyId}`, mode === 'live' ? this.config.RATE_LIMIT_LIVE : this.config.RATE_LIMIT_TEST, this.config.RATE_LIMIT_WINDOW_MS, true);
  }

  /**
   * A keyed request drawn from its key's budget and from its organization's in that mode, which all of the
   * organization's keys of the mode share: RATE_LIMIT_ORGANIZATION_KEYS keys' worth. So an organization that
   * makes more keys does not get more throughput (and more of the service) than that. One round trip. A
   * request its key's own budget refuses takes nothing of the organization's: a key in a loop spends its own
   * budget, not its organization's other keys'.
   */
  async forKeyOfOrganization(keyId: string, organizationId: string, mode: 'test' | 'live'): Promise<{ key: LimitDecision; organization: LimitDecision }> {
    const perKey = mode === 'live' ? this.config.RATE_LIMIT_LIVE : this.config.RATE_LIMIT_TEST;
    const windowMs = this.config.RATE_LIMIT_WINDOW_MS;
    const [key, organization] = await this.counter.hitPair(`key:${keyId}`, `org:${mode}:${organizationId}`, windowMs, perKey);
    return { key: decision(key, perKey), organization: decision(organization, perKey * this.config.RATE_LIMIT_ORGANIZATION_KEYS) };
  }

  forAnonymous(client: string): Promise<LimitDecision> {
    return this.decide(`ip:${client}`, this.config.RATE_LIMIT_ANONYMOUS, this.config.RATE_LIMIT_WINDOW_MS, true);
  }

  /** Whether this client address may still present unknown keys and sign in to the console (too many failures block it for a minute). */
  authFailuresAllowed(client: string): Promise<LimitDecision> {
    return this.decide(`authfail:${client}`, this.config.RATE_LIMIT_AUTH_FAILURES, 60_000, false);
  }

  recordAuthFailure(client: string): Promise<LimitDecision> {
    return this.decide(`authfail:${client}`, this.config.RATE_LIMIT_AUTH_FAILURES, 60_000, true);
  }

  /**
   * A console sign-in's place in this client address's failure budget, taken before its password is
   * checked (counted as a failure until `forgiveAuthAttempt`), so attempts sent at once cannot all be
   * checked while the budget reads untouched. Not allowed past the budget.
   */
  takeAuthAttempt(client: string): Promise<LimitDecision> {
    return this.recordAuthFailure(client);
  }

  /** A sign-in taken with takeAuthAttempt succeeded: it is not a failure. */
  async forgiveAuthAttempt(client: string): Promise<void> {
    await this.counter.unhit(`authfail:${client}`, 60_000);
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

/** A counted request's decision: allowed while its window's count is within the limit. */
function decision(w: WindowCount, limit: number): LimitDecision {
  return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetSeconds: Math.max(1, Math.ceil(w.resetMs / 1000)) };
}
