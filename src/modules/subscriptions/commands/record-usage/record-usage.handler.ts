import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { FieldErrors, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { MAX_INTEGER_DIGITS, parseAmount } from '../../../../shared/money/money';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { usageEventView } from '../../dto/subscription.view';
import type { SubscriptionRecord } from '../../persistence/subscription.record';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { UsageEventRow, UsageEventsRepository } from '../../persistence/usage-events.repository';
import { SubscriptionCatalog } from '../../subscription-catalog';
import { CatalogPass, PeriodInvoicer, termsOf } from '../../billing/period-invoicer';
import { periodAt, periodContaining } from '../../domain/periods';
import { RatesAsOfQuery } from '../../../rates';
import type { Amount } from '../../../../shared/money/money';
import { RecordedUsage, RecordUsageCommand } from './record-usage.command';

/** What never changes of a subscription: enough to check an event before the statement checks the rest. */
interface SubscriptionFacts {
  productId: string;
  billingSchemaId: string;
  startsAt: Date;
}

/** Most subscriptions whose facts one process keeps. */
const FACTS_CACHE_SIZE = 10_000;

@CommandHandler(RecordUsageCommand)
export class RecordUsageHandler implements ICommandHandler<RecordUsageCommand> {
  /** By organization, mode and id; a CANCELED subscription is refused by the insert itself. */
  private readonly facts = new Map<string, SubscriptionFacts>();

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly subscriptions: SubscriptionsRepository,
    @Inject(UsageEventsRepository) private readonly usage: UsageEventsRepository,
    @Inject(SubscriptionCatalog) private readonly catalog: SubscriptionCatalog,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PeriodInvoicer) private readonly invoicer: PeriodInvoicer,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ scope, events, batch }: RecordUsageCommand): Promise<RecordedUsage[]> {
    const path = (i: number, field: string) => (batch ? `events.${i}.${field}` : field);
    const errors: FieldErrors = {};
    const subscriptions = new Map<string, SubscriptionFacts | 'canceled' | null>();
    for (const id of new Set(events.map((e) => e.subscriptionId))) subscriptions.set(id, await this.factsOf(scope, id));
    const now = await this.clock.nowFor(scope);
    const seen = new Map<string, number>();
    const rows: UsageEventRow[] = [];
    /** The events sent without a timestamp: theirs is the time they are stored, taken under the subscriptions' locks. */
    const stampedOnStore = new Set<UsageEventRow>();
    /** The fields refused of each event by index: dropped for an id recorded before (a repeat answers the first record). */
    const refused = new Map<number, string[]>();
    const refuse = (i: number, field: string, message: string) => {
      errors[path(i, field)] = message;
      refused.set(i, [...(refused.get(i) ?? []), path(i, field)]);
    };
    for (const [i, e] of events.entries()) {
      const subscription = subscriptions.get(e.subscriptionId) ?? null;
      if (seen.has(e.id)) errors[path(i, 'id')] = `repeats events.${seen.get(e.id)}.id in the same batch`;
      seen.set(e.id, i);
      const timestamp = e.timestamp ?? now;
      const row: UsageEventRow = {
        id: e.id,
        subscriptionId: e.subscriptionId,
        metricKey: e.metricKey,
        value: parseAmount(e.value),
        uniqueKey: e.uniqueKey,
        timestamp,
        createdAt: now,
      };
      rows.push(row);
      if (!e.timestamp) stampedOnStore.add(row);
      if (!subscription) {
        refuse(i, 'subscription_id', 'is not a subscription of this organization and mode');
        continue;
      }
      if (subscription === 'canceled') {
        refuse(i, 'subscription_id', 'is canceled');
        continue;
      }
      const metrics = await this.catalog.metrics(scope, subscription.productId, subscription.billingSchemaId);
      if (!metrics.has(e.metricKey)) {
        refuse(
          i,
          'metric_key',
          metrics.size
            ? `is not a metric of the subscription's billing schema (one of: ${[...metrics.keys()].join(', ')})`
            : "is not a metric of the subscription's billing schema (it prices no usage)",
        );
      }
      if (timestamp.getTime() < subscription.startsAt.getTime()) refuse(i, 'timestamp', 'must not be before the subscription starts');
    }
    await this.forgiveRepeats(this.tx.manager, scope, rows, refused, errors);
    // The schemas are read before the transaction: nothing is asked on the bus while it is open.
    const catalog: CatalogPass = new Map();
    for (const facts of subscriptions.values()) {
      if (!facts || facts === 'canceled') continue;
      const key = `${scope.organizationId} ${scope.mode} ${facts.productId} ${facts.billingSchemaId}`;
      if (!catalog.has(key)) catalog.set(key, this.catalog.schema(scope, facts.productId, facts.billingSchemaId));
    }
    await Promise.all(catalog.values());
    // Today's rates, for the invoices' bound in USD (also read before the transaction).
    const usd = (await this.queries.execute(new RatesAsOfQuery())).usd;
    // Ids seen before are left as first recorded and read back. The subscriptions are locked first, so
    // that events of one subscription sent at once are checked against each other's sums.
    const inserted = await this.tx.run(async (w) => {
      const locked = await this.subscriptions.lockMany(w, scope, [...new Set(rows.map((r) => r.subscriptionId))]);
      // Stored now, under the locks the scheduler takes to close a period: an event without a timestamp gets
      // this moment, never one from before a wait in which its period was closed and invoiced without it.
      const stored = await this.clock.nowFor(scope, w);
      for (const row of rows) {
        row.createdAt = stored;
        if (stampedOnStore.has(row)) row.timestamp = stored;
      }
      await this.refuseUnbillable(w, scope, locked, rows, stampedOnStore, path);
      const fresh = await this.usage.insert(w, scope, rows);
      const repeats = rows.filter((r) => !fresh.has(r.id)).map((r) => r.id);
      const firsts = new Map((await this.usage.findMany(w, scope, repeats)).map((r) => [r.id, r]));
      // A repeat whose first event is past the usage retention (its month dropped, its key kept) is still a repeat.
      const missing = repeats.filter((id) => !firsts.has(id));
      const expired = missing.length ? await this.usage.knownKeys(w, scope, missing) : new Set<string>();
      const lost = rows.findIndex((r) => !fresh.has(r.id) && !firsts.has(r.id) && !expired.has(r.id));
      if (lost >= 0) {
        // Neither inserted nor recorded before: the subscription was canceled since it was checked (by another
        // request, or on another instance while this one remembered it). The whole request is refused, so
        // nothing of it is stored: the events inserted with it roll back.
        this.facts.delete(this.key(scope, rows[lost].subscriptionId));
        throw new ValidationFailedError({ [path(lost, 'subscription_id')]: 'is canceled' });
      }
      await this.checkAmountLimits(w, locked, rows, fresh, catalog, usd, path);
      return { fresh, firsts };
    });
    return rows.map((r) => ({ event: usageEventView(inserted.firsts.get(r.id) ?? r), created: inserted.fresh.has(r.id) }));
  }

  /**
   * Refuses (400) a new event no invoice will bill, rather than taking it and billing it nowhere:
   * - after the end of a subscription canceled at period end (no invoice bills usage from then on), also
   *   before the scheduler has moved it to CANCELED (its tick may come later than that moment): its current
   *   period's end, or an ADVANCE one's next invoice time when that comes first (one that has not started
   *   yet ends at its start, having served and billed nothing);
   * - in a period whose usage an invoice already billed: the scheduler recorded the invoice that bills it
   *   (the period's own for ARREARS, the next one's for ADVANCE), which read the period's usage then.
   *   Decided under the subscription's lock, the one the scheduler records a period with.
   */
  private async refuseUnbillable(
    w: EntityManager,
    scope: RecordUsageCommand['scope'],
    locked: readonly SubscriptionRecord[],
    rows: readonly UsageEventRow[],
    stampedOnStore: ReadonlySet<UsageEventRow>,
    path: (i: number, field: string) => string,
  ): Promise<void> {
    const ending = new Map(locked.filter((s) => s.cancelAtPeriodEnd).map((s) => [s.id, endOfCanceling(s)]));
    const errors: FieldErrors = {};
    const refused = new Map<number, string[]>();
    const byId = new Map(locked.map((l) => [l.id, l]));
    for (const [i, row] of rows.entries()) {
      const end = ending.get(row.subscriptionId);
      if (end && row.timestamp.getTime() >= end.getTime()) {
        const ended = `the subscription is canceled at period end and ended at ${formatTimestamp(end)}`;
        const field = path(i, stampedOnStore.has(row) ? 'subscription_id' : 'timestamp');
        errors[field] = stampedOnStore.has(row) ? `is canceled: ${ended}` : `must be before ${formatTimestamp(end)}: ${ended}`;
        refused.set(i, [field]);
        continue;
      }
      const s = byId.get(row.subscriptionId);
      if (!s) continue;
      const period = periodContaining(termsOf(s), s.startsAt, row.timestamp);
      const billedBy = s.paymentType === 'ADVANCE' ? period.index + 1 : period.index;
      if (billedBy >= s.nextInvoiceIndex) continue;
      const field = path(i, 'timestamp');
      errors[field] =
        `falls in the period ${formatTimestamp(period.start)} to ${formatTimestamp(period.end)}, whose usage is invoiced already; ` +
        `usage from ${formatTimestamp(periodAt(termsOf(s), s.startsAt, s.paymentType === 'ADVANCE' ? s.nextInvoiceIndex - 1 : s.nextInvoiceIndex).start)} on is still billed`;
      refused.set(i, [field]);
    }
    await this.forgiveRepeats(w, scope, rows, refused, errors);
  }

  /**
   * An event whose id the scope recorded before is a repeat, answered with its first record (decisions §20),
   * whatever has changed since (the subscription canceled, its period ended): its refusals are dropped.
   * Anything still refused then is 400. Asked only when something was refused, so a valid request pays nothing.
   */
  private async forgiveRepeats(
    m: EntityManager,
    scope: RecordUsageCommand['scope'],
    rows: readonly UsageEventRow[],
    refused: ReadonlyMap<number, string[]>,
    errors: FieldErrors,
  ): Promise<void> {
    if (refused.size > 0) {
      const known = await this.usage.knownKeys(
        m,
        scope,
        [...refused.keys()].map((i) => rows[i].id),
      );
      for (const [i, fields] of refused) if (known.has(rows[i].id)) for (const f of fields) delete errors[f];
    }
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);
  }

  /**
   * Refuses (400 naming `value`; the caller's transaction then stores nothing) new events that take
   * their period's aggregate, or the total of the invoice that will bill that period's usage (the next
   * period's for ADVANCE), past what an amount can hold: in the invoice's currency, and in USD at today's
   * rates (pricing refuses either, so such an invoice could never be made and the period never billed).
   */
  private async checkAmountLimits(
    w: EntityManager,
    locked: readonly SubscriptionRecord[],
    rows: readonly UsageEventRow[],
    fresh: ReadonlySet<string>,
    catalog: CatalogPass,
    usd: Partial<Record<string, Amount>>,
    path: (i: number, field: string) => string,
  ): Promise<void> {
    const errors: FieldErrors = {};
    // Each invoice that will bill new usage, checked once, named at the last new event it bills.
    const invoices = new Map<string, { s: SubscriptionRecord; index: number; last: number }>();
    for (const [i, row] of rows.entries()) {
      if (!fresh.has(row.id)) continue;
      const s = locked.find((l) => l.id === row.subscriptionId);
      if (!s) continue;
      const usage = periodContaining(termsOf(s), s.startsAt, row.timestamp);
      const index = s.paymentType === 'ADVANCE' ? usage.index + 1 : usage.index;
      invoices.set(`${s.id} ${index}`, { s, index, last: i });
    }
    for (const { s, index, last } of invoices.values()) {
      const past = await this.invoicer.pastAmountLimit(w, s, index, catalog, usd[s.currency] ?? null);
      if (past === 'aggregate')
        errors[path(last, 'value')] = `would take the period's usage of ${rows[last].metricKey} past ${MAX_INTEGER_DIGITS} integer digits`;
      else if (past === 'total')
        errors[path(last, 'value')] =
          `would take the invoice that bills this period's usage past ${MAX_INTEGER_DIGITS} integer digits (in ${s.currency}, or in USD at today's rates)`;
    }
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);
  }

  private key(scope: RecordUsageCommand['scope'], id: string): string {
    return `${scope.organizationId} ${scope.mode} ${id}`;
  }

  private async factsOf(scope: RecordUsageCommand['scope'], id: string): Promise<SubscriptionFacts | 'canceled' | null> {
    const cached = this.facts.get(this.key(scope, id));
    if (cached) return cached;
    const record: SubscriptionRecord | null = await this.subscriptions.find(this.tx.manager, scope, id);
    if (!record) return null;
    if (record.status === 'CANCELED') return 'canceled';
    const facts = { productId: record.productId, billingSchemaId: record.billingSchemaId, startsAt: record.startsAt };
    if (this.facts.size >= FACTS_CACHE_SIZE) this.facts.delete(this.facts.keys().next().value as string);
    this.facts.set(this.key(scope, id), facts);
    return facts;
  }
}

/**
 * When a subscription canceled at period end stops serving: its current period's end, or for ADVANCE its next
 * invoice's time when that comes first. An ADVANCE subscription that has not started ends at its start (the
 * scheduler ends it there, before its first invoice), though its current period is shown to its end.
 */
function endOfCanceling(s: SubscriptionRecord): Date {
  const next = s.nextInvoiceAt;
  return s.paymentType === 'ADVANCE' && next && next.getTime() < s.currentPeriodEnd.getTime() ? next : s.currentPeriodEnd;
}
