import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Scope } from '../../../shared/auth/request-context';
import { ValidationFailedError } from '../../../shared/errors/domain-error';
import { INVOICE_STATUSES } from '../../invoices';
import { PAYMENT_STATUSES } from '../../payments';
import { REFUND_STATUSES } from '../../refunds';
import { isExportKind } from '../domain/csv';
import { exportsPage } from '../domain/export-pages';
import { messagePage, PageContext } from '../domain/pages';
import { may } from '../domain/roles';
import { CsvExports } from './csv-exports.service';

const STATUSES = { invoices: INVOICE_STATUSES, payments: PAYMENT_STATUSES, refunds: REFUND_STATUSES };

/**
 * The console's side of the exports: its page and its downloads (the session and the role were
 * checked by the console's controller). The CSV is the API's, from the same service.
 */
@Injectable()
export class ConsoleExportRoutes {
  constructor(@Inject(CsvExports) private readonly exports: CsvExports) {}

  page(c: PageContext, res: Response, status = 200, problem: string | null = null): void {
    res.status(status).send(exportsPage(c, STATUSES, problem));
  }

  /** `file` is `<kind>.csv`; another name is a 404, a bad filter the exports page naming it (400). */
  async csv(c: PageContext, scope: Scope, file: string, query: Record<string, unknown>, res: Response): Promise<void> {
    const kind = file.endsWith('.csv') ? file.slice(0, -'.csv'.length) : '';
    if (!isExportKind(kind)) {
      res.status(404).send(messagePage(c, c.s.not_found, c.s.not_found));
      return;
    }
    let filter;
    try {
      filter = this.exports.filterOf(kind, query);
    } catch (e) {
      if (!(e instanceof ValidationFailedError)) throw e;
      const fields = Object.entries(e.fields ?? {})
        .map(([k, v]) => `${k} ${String(v)}`)
        .join('; ');
      this.page(c, res, 400, fields);
      return;
    }
    await this.exports.send(res, kind, scope, filter, { claimLinks: may(c.member.role, 'invoices.write', c.mode) });
  }
}
