import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';

/** The scope's subscriptions as they stand now, for the dashboard. Amounts are 30-digit decimal strings. */
export interface SubscriptionFigures {
  /** Subscriptions ACTIVE now (PAST_DUE not included). */
  active_count: number;
  past_due_count: number;
  canceled_count: number;
  /** Monthly recurring revenue of the ACTIVE and PAST_DUE subscriptions (base price x quantity per month; usage left out), in USD at current rates. */
  mrr_usd: string;
  /** The same per currency of the schemas, largest first. */
  mrr_by_currency: Array<{ currency: string; mrr: string; mrr_usd: string }>;
}

/**
 * The dashboard's subscription figures, answered by the module that owns subscriptions (the arrow
 * points subscriptions -> analytics, as for refunds): analytics asks, the subscriptions module
 * registers the handler.
 */
export class GetSubscriptionFiguresQuery extends Query<SubscriptionFigures> {
  constructor(readonly scope: Scope) {
    super();
  }
}
