import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { Amount, MAX_INTEGER_DIGITS, Money, renderAmount, sumAmounts } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import { CreateInvoiceCommand, CreateItemInput } from '../../invoices';
import { baseAmount, BillingTerms, dueAction, finalUsagePlan, PeriodInvoicePlan, periodInvoicePlan } from '../domain/billing';
import { baseLineText, planText, usageLineText } from '../domain/line-text';
import { isWhole } from '../domain/periods';
import { AggregationType, graduatedPrice } from '../domain/usage';
import type { UpcomingInvoiceView, UpcomingLineView } from '../dto/subscription.view';
import type { SubscriptionRecord } from '../persistence/subscription.record';
import { UsageEventsRepository } from '../persistence/usage-events.repository';
import { SubscribedSchema, SubscriptionCatalog } from '../subscription-catalog';
import { SubscriptionsConfig } from '../subscriptions.config';

/** The least amount past what an amount can hold (48 integer digits). */
const AMOUNT_LIMIT = new Money(10).pow(MAX_INTEGER_DIGITS);

/** An upper bound of a metric's aggregate from its period's sum, largest value and count (exact for SUM and COUNT). */
function aggregateBound(type: AggregationType, b: { sum: Amount; max: Amount; count: Amount }): Amount {
  if (type === 'SUM') return b.sum;
  if (type === 'COUNT' || type === 'UNIQUE_COUNT') return b.count;
  return b.max;
}

/**
 * What bounds of the usage (each metric's sum, largest value and count, at least the period's) say of an
 * invoice of `base` plus the schema's usage lines: `aggregate` when a SUM metric's bound is itself past
 * the limit (so is the period's own sum, when the bounds are the period's), `total` when the priced
 * bounds are (the exact invoice may still be under it), null when even the bounds keep it under. `limit`: what
 * an amount of the invoice's currency may reach (AMOUNT_LIMIT, less in a currency worth more than a dollar:
 * usdLimitIn).
 */
export function boundedPast(
  schema: Pick<SubscribedSchema, 'metrics'>,
  base: Amount,
  bounds: ReadonlyMap<string, { sum: Amount; max: Amount; count: Amount }>,
  limit: Amount = AMOUNT_LIMIT,
): 'aggregate' | 'total' | null {
  let total = base;
  for (const metric of schema.metrics.values()) {
    const bound = bounds.get(metric.metricKey);
    if (!bound) continue;
    const quantity = aggregateBound(metric.aggregation, bound);
    if (metric.aggregation === 'SUM' && quantity.greaterThanOrEqualTo(AMOUNT_LIMIT)) return 'aggregate';
    total = total.add(graduatedPrice(metric.tiers, quantity).amount);
  }
  return total.lessThan(limit) ? null : 'total';
}

/**
 * What an amount of a currency worth `usdPerUnit` may reach on an invoice: pricing refuses a line or a total
 * past 48 integer digits in its currency or in USD, so in a currency worth more than a dollar the USD value
 * meets the bound first (at today's rate; null: no rate known, the currency's own bound).
 */
export function amountLimitIn(usdPerUnit: Amount | null): Amount {
  return usdPerUnit && usdPerUnit.greaterThan(1) ? AMOUNT_LIMIT.div(usdPerUnit) : AMOUNT_LIMIT;
}

export function termsOf(s: SubscriptionRecord): BillingTerms {
  return { intervalType: s.intervalType, intervalCount: s.intervalCount, renewType: s.renewType, billingType: s.billingType, paymentType: s.paymentType };
}

/**
 * The plan of period `index`'s invoice, or with `final`, of the final usage invoice before it (an ADVANCE
 * subscription canceled at period end).
 */
export function planOf(s: SubscriptionRecord, index: number, final: boolean): PeriodInvoicePlan {
  return final ? finalUsagePlan(termsOf(s), s.startsAt, index) : periodInvoicePlan(termsOf(s), s.startsAt, index);
}

/** Whether the invoice at `index` that is still to come is the final usage invoice (ADVANCE canceled at period end). */
export function endsWithFinalUsage(s: SubscriptionRecord, index: number): boolean {
  return dueAction(s.paymentType, s.cancelAtPeriodEnd) === 'end' && index >= s.nextInvoiceIndex && index > 0;
}

export function scopeOfRecord(s: Pick<SubscriptionRecord, 'organizationId' | 'mode'>): Scope {
  return { organizationId: s.organizationId as Scope['organizationId'], mode: s.mode };
}

/** Catalog reads shared by the invoices of one scheduler pass, by organization, mode, product and schema. */
export type CatalogPass = Map<string, Promise<SubscribedSchema | null>>;

/** A period invoice worked out: what the invoice create command gets, and the lines as the preview shows them. */
export interface ComposedInvoice {
  plan: PeriodInvoicePlan;
  items: CreateItemInput[];
  lines: UpcomingLineView[];
  total: Amount;
}

/**
 * Works out a period's invoice (domain/billing.ts decides what it charges) and issues it through the
 * invoices module's CreateInvoiceCommand, the one pipeline every invoice goes through:
 * - the base line is a PRODUCT item (the schema's base price x quantity) when the period is whole
 *   and the product version is still active; otherwise (a prorated first period, or a catalog
 *   version since replaced) a PAYMENT_INTENT item of the exact amount in the schema's currency;
 * - each metric with usage priced above zero is a PAYMENT_INTENT item of its graduated price.
 */
@Injectable()
export class PeriodInvoicer {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SubscriptionCatalog) private readonly catalog: SubscriptionCatalog,
    @Inject(UsageEventsRepository) private readonly usage: UsageEventsRepository,
    @Inject(SubscriptionsConfig) private readonly config: SubscriptionsConfig,
  ) {}

  /**
   * `catalog`: the scheduler's reads of the catalog for one pass (many subscriptions share a schema;
   * a version replaced during the pass is seen by the next one).
   */
  async compose(m: EntityManager, s: SubscriptionRecord, index: number, catalog?: CatalogPass, final = false): Promise<ComposedInvoice> {
    const scope = scopeOfRecord(s);
    const plan = planOf(s, index, final);
    const key = `${s.organizationId} ${s.mode} ${s.productId} ${s.billingSchemaId}`;
    let read = catalog?.get(key);
    if (!read) {
      read = this.catalog.schema(scope, s.productId, s.billingSchemaId);
      catalog?.set(key, read);
    }
    const schema = await read;
    const items: CreateItemInput[] = [];
    const lines: UpcomingLineView[] = [];
    const amount = baseAmount(s.basePrice, s.quantity, plan.baseShare);
    // Each line says what it charges: the plan, the quantity or the metric's usage, and the period.
    const planName = planText(schema?.productName ?? '', schema?.schemaName ?? null);
    // The final usage invoice bills no period of service: no base line.
    if (!plan.finalUsage) {
      const baseText = baseLineText(planName, s.quantity, plan.period, !isWhole(plan.baseShare));
      if (isWhole(plan.baseShare) && schema?.productActive && schema.schemaActive) {
        items.push({ type: 'PRODUCT', product_id: s.productId, billing_schema_id: s.billingSchemaId, quantity: s.quantity, description: baseText });
      } else {
        items.push({ type: 'PAYMENT_INTENT', currency: s.currency, price: renderAmount(amount), description: baseText });
      }
      lines.push({
        type: 'BASE',
        description: baseText,
        metric_key: null,
        quantity: String(s.quantity),
        amount: renderAmount(amount),
        period_start: formatTimestamp(plan.period.start),
        period_end: formatTimestamp(plan.period.end),
      });
    }
    const usagePeriod = plan.usagePeriod;
    if (usagePeriod) {
      for (const metric of schema?.metrics.values() ?? []) {
        const quantity = await this.usage.aggregate(m, scopeOfRecord(s), s.id, metric.metricKey, metric.aggregation, usagePeriod.start, usagePeriod.end);
        const priced = graduatedPrice(metric.tiers, quantity);
        const usageText = usageLineText(planName, metric.name, quantity, usagePeriod);
        if (priced.amount.greaterThan(0))
          items.push({ type: 'PAYMENT_INTENT', currency: s.currency, price: renderAmount(priced.amount), description: usageText });
        lines.push({
          type: 'USAGE',
          description: usageText,
          metric_key: metric.metricKey,
          quantity: renderAmount(quantity),
          amount: renderAmount(priced.amount),
          period_start: formatTimestamp(usagePeriod.start),
          period_end: formatTimestamp(usagePeriod.end),
        });
      }
    }
    return { plan, items, lines, total: sumAmounts(lines.map((l) => new Money(l.amount))) };
  }

  /**
   * Whether period `index`'s invoice, as it would be made now from the usage stored (in `m`), is past
   * what an amount can hold: a metric's aggregate (`aggregate`) or a line or the total (`total`); null
   * when it is not. Graduated prices never fall as usage grows, so bounds of the usage answer first: the
   * subscription's lifetime totals (one row per metric, however many events the period holds), then,
   * only when those come near the limit, the period's own (one statement reading its events), and the
   * exact invoice only when the period's bounds are past it. `catalog` must hold the subscription's
   * schema (so nothing is asked on the bus while the caller's transaction is open).
   */
  async pastAmountLimit(
    m: EntityManager,
    s: SubscriptionRecord,
    index: number,
    catalog: CatalogPass,
    usdPerUnit: Amount | null = null,
  ): Promise<'aggregate' | 'total' | null> {
    const final = endsWithFinalUsage(s, index);
    const plan = planOf(s, index, final);
    if (!plan.usagePeriod) return null;
    const schema = await catalog.get(`${s.organizationId} ${s.mode} ${s.productId} ${s.billingSchemaId}`);
    if (!schema) return null;
    const base = baseAmount(s.basePrice, s.quantity, plan.baseShare);
    const limit = amountLimitIn(usdPerUnit);
    if (boundedPast(schema, base, await this.usage.lifetimeBounds(m, s.id), limit) === null) return null;
    const bounded = boundedPast(schema, base, await this.usage.periodBounds(m, scopeOfRecord(s), s.id, plan.usagePeriod.start, plan.usagePeriod.end), limit);
    if (bounded !== 'total') return bounded;
    const exact = await this.compose(m, s, index, catalog, final);
    if (exact.lines.some((l) => l.type === 'USAGE' && new Money(l.quantity).greaterThanOrEqualTo(AMOUNT_LIMIT))) return 'aggregate';
    return exact.lines.some((l) => new Money(l.amount).greaterThanOrEqualTo(limit)) || exact.total.greaterThanOrEqualTo(limit) ? 'total' : null;
  }

  /**
   * Issues period `index`'s invoice, or with `final` the final usage invoice before it (once: issuing it
   * again answers the same invoice). A final usage invoice with no usage priced above zero is not made:
   * `invoiceId` null.
   */
  async issue(
    m: EntityManager,
    s: SubscriptionRecord,
    index: number,
    catalog?: CatalogPass,
    final = false,
  ): Promise<{ invoiceId: string | null; plan: PeriodInvoicePlan }> {
    const composed = await this.compose(m, s, index, catalog, final);
    const { period } = composed.plan;
    if (final && composed.items.length === 0) return { invoiceId: null, plan: composed.plan };
    const result = await this.commands.execute(
      new CreateInvoiceCommand(scopeOfRecord(s), {
        items: composed.items,
        currency: s.currency,
        customerEmail: s.customerEmail,
        metadata: {},
        redirectUrl: null,
        expiresInMinutes: this.config.SUBSCRIPTION_INVOICE_EXPIRY_MINUTES,
        subscription: { subscriptionId: s.id, periodStart: period.start, periodEnd: period.end },
      }),
    );
    return { invoiceId: result.id, plan: composed.plan };
  }

  /**
   * The next invoice as it would be issued now: for an ADVANCE subscription canceled at period end, its
   * final usage invoice (usage lines only; null while no usage is priced above zero, as it would not be made).
   */
  async preview(m: EntityManager, s: SubscriptionRecord): Promise<UpcomingInvoiceView | null> {
    const final = endsWithFinalUsage(s, s.nextInvoiceIndex);
    const composed = await this.compose(m, s, s.nextInvoiceIndex, undefined, final);
    // A final usage invoice with nothing priced above zero (so far) would not be made.
    if (final && composed.items.length === 0) return null;
    return {
      subscription_id: s.id,
      period_start: formatTimestamp(composed.plan.period.start),
      period_end: formatTimestamp(composed.plan.period.end),
      invoice_at: formatTimestamp(composed.plan.dueAt),
      currency: s.currency,
      lines: composed.lines,
      total: renderAmount(composed.total),
    };
  }
}
