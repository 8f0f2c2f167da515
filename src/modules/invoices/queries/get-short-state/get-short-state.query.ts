import { Query } from '@nestjs/cqrs';
import type { InvoiceAccess } from '../../persistence/invoices.repository';

export interface InvoiceShortState {
  id: string;
  status: string;
  substatus: string | null;
  updated_at: string;
}

export class GetShortStateQuery extends Query<InvoiceShortState> {
  constructor(
    readonly access: InvoiceAccess,
    readonly invoiceId: string,
  ) {
    super();
  }
}
