import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { isCrypto } from '../../../../shared/money/currency';
import { CalculatePricesQuery } from '../../../quotes';
import { GetProductsByIdsQuery } from '../../../products';
import { ListInvoicePaymentsQuery } from '../../ports/list-invoice-payments.query';
import { GetOrganizationProfileQuery } from '../../../organizations';
import { PAYER_EXPANSIONS, payerProductView, withImpliedParents } from '../../domain/payer-view';
import { calculationView, InvoiceView, invoiceView, itemView, summaryView } from '../../dto/invoice.views';
import { itemInputsOf } from '../../persistence/item-inputs';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { heldRatesSnapshot } from '../../domain/invoice-timing';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { GetInvoiceQuery } from './get-invoice.query';

@QueryHandler(GetInvoiceQuery)
export class GetInvoiceHandler implements IQueryHandler<GetInvoiceQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ access, invoiceId, expand, summaryCurrency }: GetInvoiceQuery): Promise<InvoiceView> {
    const payer = access === null;
    if (payer) {
      const refused: Record<string, string> = {};
      expand.forEach((e, i) => {
        if (!PAYER_EXPANSIONS.includes(e)) refused[`expand.${i}`] = `${e} cannot be expanded without an API key; allowed: ${PAYER_EXPANSIONS.join(', ')}`;
      });
      if (Object.keys(refused).length) throw new ValidationFailedError(refused);
    }
    const m = this.tx.readsFor(access);
    const want = withImpliedParents(expand);
    const needItems = want.has('items') || summaryCurrency !== null;
    // The invoice, its items and its calculation lines come back in one query.
    const found = await this.repo.findWithParts(m, access, invoiceId, { items: needItems, calculations: want.has('calculations') });
    if (!found) throw new NotFoundError('invoice');
    const now = await this.clocks.nowFor(found.invoice);
    const invoice = this.clocks.current(found.invoice, now);
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };
    const view = invoiceView(invoice, payer, this.clocks.monitoringMinutes);

    const items = found.items ?? [];
    if (want.has('items')) {
      const views = items.map(itemView);
      const withProduct = want.has('items.product');
      const withSchema = want.has('items.billing_schema');
      const products = items.filter((i) => i.productId);
      if (withProduct || withSchema) {
        // Payment intents have no product: only ask the catalog when a product item is there.
        const catalog = products.length
          ? await this.queries.execute(
              new GetProductsByIdsQuery(
                scope,
                withProduct ? [...new Set(products.map((i) => i.productId!))] : [],
                withSchema ? [...new Set(products.map((i) => i.billingSchemaId!))] : [],
              ),
            )
          : { products: {}, schemas: {} };
        // A payer sees the product through an allow-list, with only the schemas this invoice used.
        const usedSchemas = new Set(products.map((i) => i.billingSchemaId!));
        views.forEach((v) => {
          const product = v.product_id ? (catalog.products[v.product_id] ?? null) : null;
          if (withProduct) v.product = product && payer ? payerProductView(product, usedSchemas) : product;
          if (withSchema) v.billing_schema = v.billing_schema_id ? (catalog.schemas[v.billing_schema_id] ?? null) : null;
        });
      }
      if (want.has('items.payment_intent')) {
        views.forEach((v) => {
          v.payment_intent = v.payment_intent_id ? { id: v.payment_intent_id, currency: v.currency, price: v.price! } : null;
        });
      }
      view.items = views;
    }
    if (found.calculations) view.calculations = found.calculations.map(calculationView);
    if (want.has('organization')) {
      const org = await this.queries.execute(new GetOrganizationProfileQuery(invoice.organizationId));
      view.organization = { name: org?.name ?? '', image_url: org?.imageUrl ?? null };
    }
    if (want.has('payments')) {
      view.payments = await this.queries.execute(new ListInvoicePaymentsQuery(scope, invoice.id, { withProvider: want.has('payments.provider'), payer }));
    }
    if (want.has('currency')) view.currency_details = { code: invoice.currency, kind: isCrypto(invoice.currency) ? 'CRYPTO' : 'FIAT' };
    if (summaryCurrency !== null) {
      // At the invoice's own rates while its rate lock holds, as its payments are valued.
      const held = heldRatesSnapshot(found.invoice, now);
      const calc = await this.queries.execute(new CalculatePricesQuery(scope, itemInputsOf(items), summaryCurrency, undefined, false, true, held));
      view.summary = summaryView(calc.currency, calc.total.price, calc.total.priceUsd, calc.rates.takenAt);
    }
    return view;
  }
}
