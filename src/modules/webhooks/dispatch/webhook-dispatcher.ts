import { Inject, Injectable, Logger, OnModuleDestroy, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../../shared/lifecycle/background-work';
import { Counter, Histogram } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { WebhooksConfig } from '../webhooks.config';
import { AppConfig } from '../../../shared/config/app-config';
import { someOrganizationFull } from '../../../shared/db/fair-batch';
import { TransactionRunner } from '../../../shared/db/transaction-runner';
import { renderEvent } from '../../../shared/events/event-payload';
import { DurableEventHandlers } from '../../../shared/events/durable-handlers';
import { EventOutbox } from '../../../shared/events/outbox';
import { newId, OrgId } from '../../../shared/ids/ids';
import { Clock } from '../../../shared/time/clock';
import { MetricsRegistry } from '../../../shared/metrics/metrics-registry';
import { renderEndpoint } from '../domain/endpoint-view';
import { maxAttempts, nextRetryDelayMs, parseRetrySchedule } from '../domain/retry-schedule';
import { CANCEL_BATCH } from '../persistence/delivery-statements';
import { ClaimedDelivery, WebhookDeliveriesRepository } from '../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../persistence/webhook-endpoints.repository';
import { EndpointResolver } from './endpoint-resolver';
import { sendWebhook, SendResult } from './http-sender';
import { WEBHOOK_ENDPOINT_EVENTS } from '../events/webhook-endpoint.events';

/**
 * The fan-out's durable handler (WebhookFanOutHandler): its cursor's key (made by the migration that dropped
 * the fan-out trigger). Never rename it (a new name starts a new cursor at the end).
 */
export const WEBHOOK_FAN_OUT = 'webhooks.fan_out';
export const USER_AGENT = 'invoicing-api-webhooks/1.0';
/** The shortest time between two passes that committed events bring forward (`soon`). */
const EARLY_PASS_GAP_MS = 200;
/**
 * How long a pass waits for its sends' answers before the next pass may claim: fast endpoints' answers keep the
 * passes back to back, as when each pass waited for all of them; a slow endpoint's no longer holds the others.
 */
const PASS_WAIT_MS = 1000;
/** Attempts one instance has in flight at most, in batches of WEBHOOK_DISPATCH_BATCH. */
const IN_FLIGHT_BATCHES = 4;
/** Paused or deleted endpoints whose older deliveries one pass cancels a batch of, at most. */
const CANCELLING_PER_PASS = 16;

/** Resolves after `ms` without keeping the process alive. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Sends committed webhook deliveries. Every WEBHOOK_DISPATCH_INTERVAL_MS it claims due deliveries
 * (several instances share the work: each attempt is claimed by one of them) in a fair batch: at
 * most WORKER_ORG_BATCH of one organization's mode, organizations interleaved, so an organization
 * with a backlog or an endpoint that never answers does not hold back another's deliveries; sends each with a
 * timeout, records the attempt and schedules a retry (backoff with jitter) or the final outcome.
 * After WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row failed, the endpoint is disabled and a
 * `webhook_endpoint.disabled` event is recorded. A pass waits for its sends' answers at most PASS_WAIT_MS (an
 * organization's mode gets no more claimed on an instance while WEBHOOK_DISPATCH_BATCH of its attempts are in
 * flight there; the instance has at most four times that), so a slow endpoint never holds back the next pass. On shutdown it stops claiming and lets the
 * attempts in flight finish.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleDestroy, OnApplicationBootstrap {
  private readonly schedule: number[];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private stopping = false;
  private timerDueAt = 0;
  private lastPassAt = 0;
  private lastCancelAt = 0;
  /** Deliveries were queued while a pass ran: the next one comes after the short gap, not the interval. */
  private queuedDuringPass = false;
  /** Attempts in flight on this instance, by organization and mode (`<organization> <mode>`). */
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  /** The organization each attempt in flight is for (an on-demand pass waits for its organization's only). */
  private readonly sendingFor = new WeakMap<Promise<void>, string>();

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(AppConfig) private readonly app: AppConfig,
    @Inject(MetricsRegistry) metrics: MetricsRegistry,
    @Inject(DurableEventHandlers) private readonly handlers: DurableEventHandlers,
    @Inject(EndpointResolver) private readonly resolver: EndpointResolver,
  ) {
    this.schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    this.attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded, failed)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.durations = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  private readonly attempts: Counter<'outcome'>;
  private readonly durations: Histogram<'outcome'>;

  private readonly logger = new Logger('WebhookDispatcher');

  /** Starts with the service's background work (after the migrations; never in the CLI). */
  onApplicationBootstrap(): void {
    this.work.whenReady(
      'webhook-dispatcher',
      () => this.start(),
      (organizationId) => this.passNow(organizationId),
    );
  }

  /** Starts the loop (once the schema is migrated); does nothing when WEBHOOK_DISPATCHER=false. */
  start(): void {
    if (this.started || !this.config.WEBHOOK_DISPATCHER) return;
    this.started = true;
    this.logger.log({ msg: 'webhook dispatcher started', interval_ms: this.config.WEBHOOK_DISPATCH_INTERVAL_MS, max_attempts: maxAttempts(this.schedule) });
    this.plan(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
    await this.settled();
  }

  private plan(delayMs: number): void {
    if (this.stopping) return;
    this.timerDueAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick().finally(() => {
        this.running = null;
      });
    }, delayMs);
  }

  /**
   * The fan-out queued deliveries (WebhookFanOutHandler, after its commit): the next pass comes now instead
   * of after the rest of the interval, unless a pass ran less than EARLY_PASS_GAP_MS ago (under a stream
   * of events the passes stay that far apart). During a pass, the one after it comes that soon too (the
   * pass under way may have claimed before they were there). A pass already due at once is left alone.
   */
  soon(): void {
    if (!this.started || this.stopping) return;
    if (this.running) {
      this.queuedDuringPass = true;
      return;
    }
    if (!this.timer) return;
    const wait = Math.max(0, this.lastPassAt + EARLY_PASS_GAP_MS - Date.now());
    if (this.timerDueAt <= Date.now() + wait) return;
    clearTimeout(this.timer);
    this.plan(wait);
  }

  private async tick(): Promise<void> {
    this.lastPassAt = Date.now();
    this.queuedDuringPass = false;
    let more = false;
    try {
      more = await this.runOnce();
    } catch (error) {
      this.logger.error({ msg: 'webhook dispatch failed', error: describe(error) });
    }
    // Cancelling what paused and deleted endpoints left pending: once an interval, not on the early passes.
    if (Date.now() - this.lastCancelAt >= this.config.WEBHOOK_DISPATCH_INTERVAL_MS) {
      this.lastCancelAt = Date.now();
      await this.cancelStale().catch((error: unknown) => {
        this.logger.error({ msg: 'cancelling deliveries of paused or deleted endpoints failed', error: describe(error) });
      });
    }
    // A full batch, or an organization's full share of it, suggests more are due: go again at once.
    // Deliveries queued during the pass: again after the short gap.
    const next = more ? 0 : this.queuedDuringPass ? EARLY_PASS_GAP_MS : this.config.WEBHOOK_DISPATCH_INTERVAL_MS;
    this.plan(Math.min(next, this.config.WEBHOOK_DISPATCH_INTERVAL_MS));
  }

  /**
   * One pass now (tests only, BackgroundWork.runPass): the fan-out first reads every event committed so
   * far (so their deliveries are there), then, after the pass under way, if any, batches until no more
   * are due, then cancels what paused and deleted endpoints left pending; whether or not the loop runs
   * (WEBHOOK_DISPATCHER=false included). With `organizationId`, only that organization's deliveries (both
   * modes) are claimed, and the pass waits for that organization's attempts in flight only: a test's pass
   * never waits on another test's slow endpoints.
   */
  async passNow(organizationId?: string): Promise<void> {
    await this.handlers.catchUp(WEBHOOK_FAN_OUT);
    while (this.running) await this.running;
    for (;;) {
      if (await this.runOnce(organizationId ?? null)) continue;
      const pending = [...this.sending].filter((attempt) => !organizationId || this.sendingFor.get(attempt) === organizationId);
      if (!pending.length) break;
      // Attempts still in flight: once they are recorded, retries or an organization's next deliveries may be due.
      await Promise.all(pending);
    }
    while (await this.cancelStale()) {
      // Until every paused or deleted endpoint's older deliveries are cancelled.
    }
  }

  /**
   * Claims one fair batch (at most WORKER_ORG_BATCH deliveries of one organization's mode, organizations
   * interleaved) and sends it; true when more may be due (the batch, or an organization's share, was full, or
   * the instance had no room). The pass waits for the answers at most PASS_WAIT_MS: an endpoint that takes its
   * whole timeout to answer (or never does) then holds only its own organization's mode, which gets no more
   * deliveries claimed on this instance while WEBHOOK_DISPATCH_BATCH of its attempts are in flight; the
   * instance has at most IN_FLIGHT_BATCHES x WEBHOOK_DISPATCH_BATCH in flight, and waits for an answer when full.
   */
  async runOnce(organizationId: string | null = null): Promise<boolean> {
    const leaseMs = this.config.WEBHOOK_TIMEOUT_MS + 30_000;
    const cap = this.app.WORKER_ORG_BATCH;
    const batch = this.config.WEBHOOK_DISPATCH_BATCH;
    const room = Math.min(batch, batch * IN_FLIGHT_BATCHES - this.sending.size);
    if (room <= 0) {
      await Promise.race(this.sending);
      return true;
    }
    const busy = [...this.inFlight].filter(([, count]) => count >= batch).map(([scope]) => scope);
    // Room goes first to organizations' modes with nothing in flight here: else slow endpoints' backlogs, older
    // than anyone's new delivery, would take every slot they free, each scope's turn after turn.
    const sending = [...this.inFlight].filter(([, count]) => count > 0).map(([scope]) => scope);
    const first = sending.length > busy.length ? await this.deliveries.claimDue(this.tx.manager, cap, room, leaseMs, sending, organizationId) : [];
    const claimed =
      first.length < room ? [...first, ...(await this.deliveries.claimDue(this.tx.manager, cap, room - first.length, leaseMs, busy, organizationId))] : first;
    await this.positionsRecorded(claimed);
    const sends = claimed.map((delivery) => this.send(delivery));
    if (sends.length) await Promise.race([Promise.all(sends), pause(PASS_WAIT_MS)]);
    return claimed.length >= room || someOrganizationFull(claimed, cap);
  }

  /**
   * Cancels a batch (CANCEL_BATCH) of the pending deliveries each paused or deleted endpoint still has from
   * before (at most CANCELLING_PER_PASS endpoints), each batch in a transaction of its own; true when some
   * may be left. An endpoint (or delivery) another transaction holds is skipped this time, not waited for:
   * the pass goes on with the others and the dispatch that follows is not held up. None of them is claimed meanwhile (the claim takes only the endpoint's current epoch): this
   * only marks them, so they no longer count as pending (retention keeps a month while any does).
   */
  async cancelStale(): Promise<boolean> {
    const endpoints = await this.deliveries.cancellingEndpoints(this.tx.manager, CANCELLING_PER_PASS);
    let full = false;
    let total = 0;
    for (const endpoint of endpoints) {
      const reason = endpoint.deleted ? 'endpoint deleted' : 'endpoint disabled';
      const cancelled = await this.tx.run((m) => this.deliveries.cancelStaleUnlessBusy(m, endpoint.id, reason, this.clock.now(), CANCEL_BATCH));
      if (cancelled === null) continue;
      full ||= cancelled >= CANCEL_BATCH;
      total += cancelled;
      if (cancelled > 0) this.logger.log({ msg: 'pending deliveries of a stopped endpoint cancelled', endpoint_id: endpoint.id, cancelled });
    }
    // A flag another transaction's rows keep set is cleared by a later pass: no progress, no going again now.
    return full || (endpoints.length >= CANCELLING_PER_PASS && total > 0);
  }

  /** One attempt, in flight until it is sent and recorded (counted for its organization's mode meanwhile). */
  private send(delivery: ClaimedDelivery): Promise<void> {
    const scope = `${delivery.organization_id} ${delivery.mode}`;
    this.inFlight.set(scope, (this.inFlight.get(scope) ?? 0) + 1);
    const attempt: Promise<void> = this.deliver(delivery)
      .catch((error) => {
        this.logger.error({ msg: 'recording a webhook attempt failed', delivery_id: delivery.id, error: describe(error) });
      })
      .finally(() => {
        const left = (this.inFlight.get(scope) ?? 1) - 1;
        if (left > 0) this.inFlight.set(scope, left);
        else this.inFlight.delete(scope);
        this.sending.delete(attempt);
      });
    this.sending.add(attempt);
    this.sendingFor.set(attempt, delivery.organization_id);
    return attempt;
  }

  /** Until every attempt in flight is sent and recorded. */
  private async settled(): Promise<void> {
    while (this.sending.size) await Promise.all([...this.sending]);
  }

  /**
   * With read replicas: the organizations' write positions are raised to the primary's before their webhooks
   * leave, so the keyed read a merchant makes on receiving one (on any instance) sees what it announces, also
   * when background work wrote it and no request of theirs recorded a position (read-replicas.ts). When the
   * primary does not say its position, the webhooks still go, and those organizations' reads take the
   * primary's position until any usable replica must have replayed what they announce.
   */
  private async positionsRecorded(claimed: readonly ClaimedDelivery[]): Promise<void> {
    const replicas = this.tx.replicas;
    if (!replicas || !claimed.length) return;
    const scopes = claimed.map((d): Scope => ({ organizationId: d.organization_id as OrgId, mode: d.mode }));
    await replicas.recordWrites(scopes).catch((error: unknown) => {
      this.logger.warn({ msg: 'write positions not recorded before webhooks were sent', event: 'replica_position_unrecorded', error: describe(error) });
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify(renderEvent(delivery.event));
    const sentAt = this.clock.now();
    const signature = this.signatures(delivery, sentAt, body);
    if (signature === null) {
      // Nothing unsigned ever leaves: the attempt fails here and is retried on its schedule (the key may come back).
      this.logger.error({
        msg: "webhook not sent: the endpoint's signing secret could not be read on this instance",
        event: 'webhook_secret_unreadable',
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint_id,
        organization_id: delivery.organization_id,
      });
      const error = 'not sent: the signing secret could not be read (check the secret keys the service runs with)';
      await this.record(delivery, { succeeded: false, status: null, body: null, error, durationMs: 0 });
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const result = await sendWebhook(delivery.url, headers, body, {
      timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: this.config.webhookAllowPrivate,
      lookup: this.resolver.guardedLookup,
    });
    await this.record(delivery, result);
    const outcome = result.succeeded ? 'succeeded' : 'failed';
    this.attempts.inc({ outcome });
    this.durations.observe({ outcome }, result.durationMs / 1000);
    this.logger.log({
      msg: 'webhook attempt',
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      endpoint_id: delivery.endpoint_id,
      attempt: delivery.attempt_count,
      succeeded: result.succeeded,
      response_status: result.status,
      error: result.error,
      duration_ms: result.durationMs,
    });
  }

  /** `v1,<base64>` with the current secret, plus the previous one while its grace period lasts. */
  /** The signature header, or null when the endpoint's secret could not be read (or is not a signing secret). */
  private signatures(delivery: ClaimedDelivery, at: Date, body: string): string | null {
    if (delivery.secret === null) return null;
    const sign = (secret: string): string | null => {
      try {
        return new Webhook(secret).sign(delivery.event_id, at, body);
      } catch {
        return null;
      }
    };
    const current = sign(delivery.secret);
    if (current === null) return null;
    const list = [current];
    if (delivery.previous_secret && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > at) {
      const previous = sign(delivery.previous_secret);
      if (previous !== null) list.push(previous);
    }
    return list.join(' ');
  }

  private async record(delivery: ClaimedDelivery, result: SendResult): Promise<void> {
    const now = this.clock.now();
    const attempt = delivery.attempt_count;
    const key = { id: delivery.id, eventId: delivery.event_id };
    const scope: Scope = { organizationId: delivery.organization_id as OrgId, mode: delivery.mode };
    await this.tx.run(async (m) => {
      // Endpoint first, then the delivery: the order every writer of both follows.
      await this.endpoints.lockById(m, delivery.endpoint_id);
      let nextAttemptAt: Date | null = null;
      if (result.succeeded) {
        if (await this.deliveries.finish(m, key, attempt, 'succeeded', null, now)) {
          await m.query(`UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0`, [delivery.endpoint_id]);
        }
      } else {
        const delay = nextRetryDelayMs(this.schedule, attempt, Math.random());
        if (delay !== null) {
          nextAttemptAt = await this.deliveries.scheduleRetry(m, key, attempt, delay, result.error ?? 'failed');
        } else if (await this.deliveries.finish(m, key, attempt, 'failed', result.error, now)) {
          await this.countFailure(m, scope, delivery.endpoint_id, now);
        }
      }
      await this.deliveries.insertAttempt(m, {
        id: newId('attempt'),
        organization_id: delivery.organization_id,
        mode: delivery.mode,
        endpoint_id: delivery.endpoint_id,
        delivery_id: delivery.id,
        event_id: delivery.event_id,
        attempt_number: attempt,
        url: delivery.url,
        succeeded: result.succeeded,
        response_status: result.status,
        response_body: result.body,
        error: result.error,
        duration_ms: result.durationMs,
        next_attempt_at: nextAttemptAt,
        created_at: now,
      });
    });
  }

  /** One more delivery failed for good: disable the endpoint once too many did in a row. */
  private async countFailure(m: EntityManager, scope: Scope, endpointId: string, now: Date): Promise<void> {
    const endpoint = await this.endpoints.find(m, scope, endpointId, true);
    if (!endpoint) return;
    const failures = endpoint.consecutive_failures + 1;
    const limit = this.config.WEBHOOK_DISABLE_AFTER_FAILURES;
    if (!endpoint.enabled || limit === 0 || failures < limit) {
      await this.endpoints.update(m, scope, endpointId, { consecutive_failures: failures, updated_at: endpoint.updated_at });
      return;
    }
    const reason = `${failures} deliveries in a row failed every attempt`;
    const saved = await this.endpoints.update(m, scope, endpointId, {
      consecutive_failures: failures,
      enabled: false,
      disabled_reason: reason,
      updated_at: now,
    });
    await this.deliveries.cancelPending(m, endpointId, 'endpoint disabled', now);
    await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.disabled'], renderEndpoint(saved), {
      previousAttributes: { enabled: true, disabled_reason: null, consecutive_failures: endpoint.consecutive_failures },
    });
    this.logger.warn({ msg: 'webhook endpoint disabled after repeated failures', endpoint_id: endpointId, failures });
  }
}
