import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../shared/auth/request-context';
import { ListInvoicePaymentsQuery } from '../invoices';
import { findCatalogProvider } from '../providers';
import { ListPayoutRailsQuery, PayoutRail } from '../rails';
import type { ClaimMethodView } from './dto/refund.views';

export interface PayoutMethod extends ClaimMethodView {
  rail: PayoutRail;
  decimals: number;
}

/**
 * The ways a payer may take a refund: the providers the mode's rails carry (CHAINS_FILE), narrowed
 * to those the invoice was paid through when any of them is carried (the payer gets back what they
 * paid with, as BTCPay's refunds offer); else every carried one (an invoice paid by card in test
 * mode, or on a network with no rail now).
 */
@Injectable()
export class PayoutMethods {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async forInvoice(scope: Scope, invoiceId: string): Promise<PayoutMethod[]> {
    const rails = await this.queries.execute(new ListPayoutRailsQuery(scope.mode));
    const all: PayoutMethod[] = [];
    for (const rail of rails) {
      const catalog = findCatalogProvider(rail.providerId);
      if (!catalog) continue;
      all.push({ provider_id: catalog.id, name: catalog.name, network: catalog.network, currency: catalog.currency, decimals: catalog.decimals, rail });
    }
    const payments = (await this.queries.execute(new ListInvoicePaymentsQuery(scope, invoiceId))) as Array<{ status: string; provider_id: string }>;
    const paidWith = new Set(payments.filter((p) => p.status === 'COMPLETED').map((p) => p.provider_id));
    const paid = all.filter((m) => paidWith.has(m.provider_id));
    return paid.length ? paid : all;
  }
}
