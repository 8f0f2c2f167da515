import { Inject } from '@nestjs/common';
import { Clock } from '../../../../shared/time/clock';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { renderAmount } from '../../../../shared/money/money';
import { formatTimestamp } from '../../../../shared/time/time';
import { GetPayableInvoiceQuery, heldRatesSnapshot, rateLock } from '../../../invoices';
import { LockedRatesQuery, PricingRatesQuery, RatesAsOfQuery, RatesUnavailableError } from '../../../rates';
import type { Currency } from '../../../../shared/money/currency';
import { amountDue } from '../../domain/amount-due';
import { ListProviderRailsQuery } from '../../ports/list-provider-rails.query';
import { GetProvidersQuery } from '../get-providers/get-providers.query';
import { InvoiceProvidersView, ListInvoiceProvidersQuery } from './list-invoice-providers.query';

@QueryHandler(ListInvoiceProvidersQuery)
export class ListInvoiceProvidersHandler implements IQueryHandler<ListInvoiceProvidersQuery> {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ access, invoiceId, assetBaseUrl }: ListInvoiceProvidersQuery): Promise<InvoiceProvidersView> {
    const invoice = await this.queries.execute(new GetPayableInvoiceQuery(access, invoiceId));
    if (!invoice) throw new NotFoundError('invoice');
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };
    const held = heldRatesSnapshot(invoice, await this.clock.nowFor(scope));
    const [providers, rails, rates] = await Promise.all([
      this.queries.execute(new GetProvidersQuery(scope)),
      this.queries.execute(new ListProviderRailsQuery(scope)),
      // The rate lock: the invoice's own rates until expires_at, then the current ones.
      this.queries.execute(held ? new RatesAsOfQuery(undefined, held) : new RatesAsOfQuery()),
    ]);
    const image = (file: string) => `${assetBaseUrl}/assets/providers/${file}`;
    const ready = new Set(rails.ready);
    // Live mode offers only what can take money now (decisions §17); test mode every enabled provider.
    const listed = providers.filter((p) => p.view.enabled && (scope.mode === 'test' || ready.has(p.catalog.id)));
    // Once the lock has lapsed a price is today's, and an address would be refused on a stale rate (decisions
    // §21): such a currency is listed without a price rather than with one the service would not hold to.
    // Within the lock, a currency whose locked rate was already stale when the lock was taken is not priced either.
    const unpriced = await this.staleCurrencies(
      held && invoice.expiresAt ? { snapshotId: held, ...rateLock(invoice, invoice.expiresAt) } : null,
      scope,
      listed.map((p) => p.catalog.currency),
    );
    return {
      providers: listed.map(({ catalog: p, view }) => ({
        id: p.id,
        provider: p.type === 'CRYPTOCURRENCY' ? 'CRYPTO' : 'FIAT',
        network: p.network,
        gateway: p.gateway,
        type: p.kind,
        filters: [...p.filters],
        metadata: {
          decimals: p.decimals,
          contract_address: p.contractAddress,
          image_url: image(p.image),
          image_url_network: image(p.networkImage),
          required_confirmations: view.required_confirmations,
        },
        name: p.name,
        currency: p.currency,
        price: unpriced.has(p.currency) ? null : renderAmount(amountDue(invoice.priceUsd, rates.usd[p.currency], p.decimals)),
        has_rail: ready.has(p.id),
      })),
      exchange_rate_timestamp: formatTimestamp(rates.takenAt),
    };
  }

  /**
   * The currencies among `currencies` live pricing would refuse now, at the rate lock's rates while it holds
   * (none in test mode or without live sources).
   */
  private async staleCurrencies(lock: { snapshotId: string; from: Date; until: Date } | null, scope: Scope, currencies: Currency[]): Promise<Set<Currency>> {
    try {
      await this.queries.execute(lock ? new LockedRatesQuery(scope, lock.snapshotId, currencies, lock) : new PricingRatesQuery(scope, currencies));
      return new Set();
    } catch (err) {
      if (err instanceof RatesUnavailableError) return new Set(err.stale.map((s) => s.currency));
      throw err;
    }
  }
}
