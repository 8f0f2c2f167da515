import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../shared/auth/request-context';
import { ListInvoicePaymentsQuery } from '../invoices';
import { findCatalogProvider, GetProvidersQuery } from '../providers';
import { ListPayoutRailsQuery, PayoutNetworksQuery } from '../rails';
import type { PayoutMethod } from './queries/list-payout-methods/list-payout-methods.query';

/**
 * The ways a payer may take a payout (a refund today), narrowed to those the invoice was paid through when any of
 * them is offered (the payer gets back what they paid with, as BTCPay's refunds offer); else every
 * offered one (an invoice paid by card in test mode, or on a network with no rail now).
 *
 * Offered in live mode: the providers the live rails carry (CHAINS_FILE). In test mode (decisions §19,
 * "Test mode"): the providers the test rails carry, and every other provider enabled for the organization
 * whose network takes a payout address (card providers have none) and has no test rail; without one the payout is fixed
 * as usual and the merchant finishes it with POST /test_helpers/refunds/{id}/payout.
 */
@Injectable()
export class PayoutMethods {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async forInvoice(scope: Scope, invoiceId: string): Promise<PayoutMethod[]> {
    const rails = await this.queries.execute(new ListPayoutRailsQuery(scope.mode));
    const all: PayoutMethod[] = [];
    if (scope.mode === 'test') {
      // The networks that take a payout address (their rail adapters' or address rules'; cards have none).
      const payoutNetworks = new Set(await this.queries.execute(new PayoutNetworksQuery()));
      const railOf = new Map(rails.map((r) => [r.providerId, r]));
      const railNetworks = new Set(rails.map((r) => r.network));
      for (const { catalog, view } of await this.queries.execute(new GetProvidersQuery(scope))) {
        const rail = railOf.get(catalog.id) ?? null;
        // A provider a test rail carries is offered as before; the others when the organization has them
        // enabled, unless their network has a test rail that does not carry them (a token left out of its
        // section, TRX without Tron's HTTP API): a report would be read on that node as another asset.
        if (!payoutNetworks.has(catalog.network.toLowerCase()) || (!rail && (!view.enabled || railNetworks.has(catalog.network.toLowerCase())))) continue;
        all.push({ provider_id: catalog.id, name: catalog.name, network: catalog.network, currency: catalog.currency, decimals: catalog.decimals, rail });
      }
    } else {
      for (const rail of rails) {
        const catalog = findCatalogProvider(rail.providerId);
        if (!catalog) continue;
        all.push({ provider_id: catalog.id, name: catalog.name, network: catalog.network, currency: catalog.currency, decimals: catalog.decimals, rail });
      }
    }
    const payments = (await this.queries.execute(new ListInvoicePaymentsQuery(scope, invoiceId))) as Array<{ status: string; provider_id: string }>;
    const paidWith = new Set(payments.filter((p) => p.status === 'COMPLETED').map((p) => p.provider_id));
    const paid = all.filter((m) => paidWith.has(m.provider_id));
    return paid.length ? paid : all;
  }
}
