import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import type { Scope } from '../../../shared/auth/request-context';
import { ValidationFailedError } from '../../../shared/errors/domain-error';
import type { Currency } from '../../../shared/money/currency';
import { parseAmount } from '../../../shared/money/money';
import { INVOICE_STATUSES, InvoiceListFilter, ListInvoicesQuery } from '../../invoices';
import { ListPaymentsQuery, PAYMENT_STATUSES, PaymentListFilter } from '../../payments';
import { ListRefundsQuery, REFUND_STATUSES, RefundFilter } from '../../refunds';
import { EXPORT_COLUMNS, ExportKind } from '../domain/csv';
import { exportFileName, ExportFilter, parseExportParams } from '../domain/export-params';
import { streamCsv } from './csv-stream';

/** Objects read per query: one list page of the owning module, written out before the next is read. */
export const EXPORT_BATCH = 500;

/** The statuses each export's `status` filter takes. */
const STATUSES: Record<ExportKind, readonly string[]> = { invoices: INVOICE_STATUSES, payments: PAYMENT_STATUSES, refunds: REFUND_STATUSES };

/**
 * The CSV exports (decisions §25), for the API (`GET /exports/...csv`) and the console alike: the
 * rows come from the owning module's list query a batch at a time (keyset pages, newest first), and
 * each batch is written to the response before the next is asked for, so an export of any size
 * holds one batch in memory and follows the client's pace.
 */
@Injectable()
export class CsvExports {
  private readonly logger = new Logger('CsvExports');

  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  /** The filters of a request's query string; ValidationFailedError naming each bad parameter. */
  filterOf(kind: ExportKind, query: Record<string, unknown>): ExportFilter {
    const parsed = parseExportParams(kind, query, STATUSES[kind]);
    if (!parsed.ok) throw new ValidationFailedError(parsed.problems);
    return parsed.filter;
  }

  /** The objects of the export, a batch at a time, each page read from where the previous one ended (nothing counted). */
  async *batches(kind: ExportKind, scope: Scope, f: ExportFilter): AsyncGenerator<object[]> {
    let after: string | undefined;
    for (;;) {
      const page = await this.page(kind, scope, f, after);
      if (page.items.length) yield page.items;
      if (!page.has_more || page.items.length === 0) return;
      after = page.items[page.items.length - 1].id;
    }
  }

  private page(
    kind: ExportKind,
    scope: Scope,
    f: ExportFilter,
    startingAfter: string | undefined,
  ): Promise<{ items: Array<{ id: string }>; has_more: boolean }> {
    // An export needs no total: without one, each page walks from the cursor (keyset-page.ts).
    const paging = { startingAfter, limit: EXPORT_BATCH, offset: 0, countTotal: false };
    const period = { createdFrom: f.createdFrom, createdTo: f.createdTo };
    const amounts = {
      priceUsdFrom: f.priceUsdFrom ? parseAmount(f.priceUsdFrom) : undefined,
      priceUsdTo: f.priceUsdTo ? parseAmount(f.priceUsdTo) : undefined,
    };
    switch (kind) {
      case 'invoices': {
        const filter: InvoiceListFilter = {
          ...paging,
          ...period,
          ...amounts,
          status: f.status as InvoiceListFilter['status'],
          currency: f.currency as Currency[] | undefined,
          customerEmail: f.customerEmail,
          providerId: f.providerId?.[0],
        };
        return this.queries.execute(new ListInvoicesQuery(scope, filter));
      }
      case 'payments': {
        const filter: PaymentListFilter = {
          ...paging,
          ...period,
          ...amounts,
          status: f.status as PaymentListFilter['status'],
          currency: f.currency as Currency[] | undefined,
          providerId: f.providerId?.map((p) => p.replace(/^provider_/, 'prov_')),
          invoiceId: f.invoiceId,
        };
        return this.queries.execute(new ListPaymentsQuery(scope, filter));
      }
      case 'refunds': {
        const filter: RefundFilter = { ...paging, ...period, status: f.status as RefundFilter['status'], invoiceId: f.invoiceId };
        return this.queries.execute(new ListRefundsQuery(scope, filter));
      }
    }
  }

  /**
   * Streams the export as the response (csv-stream.ts): `text/csv`, a header line, then one line per object,
   * each batch read once the previous one is written (the client's pace). The first batch is read before
   * anything is sent, so a failure there is still an error envelope; a later failure ends the response
   * without its last chunk (a broken transfer, never a short file that looks complete), and is logged.
   * Without `claimLinks`, a refund's `claim_url` cell is left empty (a console member who may not refund).
   */
  send(res: Response, kind: ExportKind, scope: Scope, filter: ExportFilter, options: { claimLinks: boolean } = { claimLinks: true }): Promise<void> {
    return streamCsv(
      res,
      EXPORT_COLUMNS[kind],
      exportFileName(kind, scope.mode, filter),
      () => (options.claimLinks ? this.batches(kind, scope, filter) : withoutClaimLinks(this.batches(kind, scope, filter))),
      (rows, error) => this.logger.error({ msg: 'export failed while streaming', kind, organization_id: scope.organizationId, rows, error: String(error) }),
    );
  }
}

/**
 * The batches with each refund's claim link left out: whoever holds the link chooses where the refund is
 * paid, so the console gives it only to members who may refund in the mode (decisions §25's refunds row).
 */
async function* withoutClaimLinks(batches: AsyncGenerator<object[]>): AsyncGenerator<object[]> {
  for await (const batch of batches) yield batch.map((row) => ('claim_url' in row ? { ...row, claim_url: null } : row));
}
