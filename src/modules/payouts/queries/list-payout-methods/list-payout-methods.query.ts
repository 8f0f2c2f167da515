import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { PayoutRail } from '../../../rails';

/** A payout method the payer may choose on the claim. */
export interface ClaimMethodView {
  provider_id: string;
  name: string;
  network: string;
  currency: string;
}

/** A way a payout may be taken: a catalog provider, and the rail it is checked on. */
export interface PayoutMethod extends ClaimMethodView {
  /** The rail the payout is checked on; null in test mode for a network without a test rail (the merchant simulates the payout). */
  rail: PayoutRail | null;
  decimals: number;
}

/**
 * The ways the payer of an invoice may take a payout of it (docs/payouts.md, "Destination claims"):
 * those the invoice was paid through when any is offered, else every offered one.
 */
export class ListPayoutMethodsQuery extends Query<PayoutMethod[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
  ) {
    super();
  }
}
