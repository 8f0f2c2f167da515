import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ItemInput } from '../../../quotes/queries/calculate-prices/calculate-prices.query';

/** The items of an invoice as they were written, for quoting an existing invoice. Null when not found in scope. */
export class GetInvoiceItemsQuery extends Query<ItemInput[] | null> {
  constructor(readonly scope: Scope, readonly invoiceId: string) {
    super();
  }
}
