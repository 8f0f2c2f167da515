import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { InvoiceStatus, InvoiceSubstatus } from '../../domain/invoice-status';

export interface InvoiceStatusEntry {
  id: string;
  status: InvoiceStatus;
  substatus: InvoiceSubstatus | null;
  /**
   * Whether its payment window has ended: the monitoring window after its expiry has closed, so no
   * payment can complete it any more unless one is already reported (an invoice without expiry: never).
   * An invoice whose payment is still settling then (WAITING_FOR_CONFIRMATIONS, PROCESSING: seen in time,
   * confirmations or the provider still to come) is given one more monitoring window to settle before it
   * counts as closed (domain/invoice-timing.ts, settlingWindowEndsAt).
   */
  paymentWindowClosed: boolean;
}

/**
 * The status of each of the given invoices of the caller's scope as it stands now (a due expiry
 * applied), for a module that follows invoices it asked for (subscriptions). Ids not in the scope
 * are left out.
 */
export class GetInvoiceStatusesQuery extends Query<InvoiceStatusEntry[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceIds: readonly string[],
  ) {
    super();
  }
}
