import { Controller, Get, Inject, Param, Req, Res, ValidationPipe } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { firstPageIfCursorUnknown } from './list-cursor';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { DomainError, ValidationFailedError } from '../../shared/errors/domain-error';
import { canonicalCurrency, CURRENCIES, type Currency, isCurrency } from '../../shared/money/currency';
import { type Amount, parseAmount } from '../../shared/money/money';
import { ListEventsQuery } from '../events';
import {
  ChangeInvoiceStatusCommand,
  CreateInvoiceCommand,
  CreateInvoiceRequestDto,
  GetInvoiceQuery,
  invoiceChangeCommand,
  UpdateInvoiceRequestDto,
} from '../invoices';
import { validationOptions } from '../../shared/http/validation';
import { GetPaymentQuery, ListPaymentsQuery, PAYMENT_STATUSES } from '../payments';
import { CancelRefundCommand, CreateRefundCommand, GetRefundQuery, ListRefundsQuery, REFUND_STATUSES, type RefundStatus } from '../refunds';
import { ConsoleFormPost, ConsoleGate, Form, formText, SignedMember } from './console-gate';
import type { Notice } from './domain/pages';
import {
  EventRowView,
  INVOICE_PAGE_ROWS,
  invoiceDetailPage,
  type NewInvoiceForm,
  newInvoicePage,
  paymentPage,
  paymentsPage,
  refundPage,
  refundsPage,
} from './pages/money-pages';
import { pageStringsOf } from './pages/page-strings';

const PAGE_SIZE = 25;
/** How many of an invoice's events (its own, its payments' and refunds') the invoice page shows at a time. */
const EVENTS_PAGE = 100;

function cursor(value: unknown, prefix: string): string | undefined {
  const t = formText(value);
  return new RegExp(`^${prefix}_[0-9A-Za-z-]{1,64}$`).test(t) ? t : undefined;
}

/** The form's amount as an exact decimal; anything else is refused naming the field. */
function amountOf(text: string): Amount {
  try {
    return parseAmount(text);
  } catch {
    throw new ValidationFailedError({ amount: 'must be a decimal number such as 10.50' });
  }
}

/** The form's currency read as the API reads it (any letter case, tickers such as BTC); anything else is refused naming the field. */
function currencyOf(text: string): Currency {
  const currency = canonicalCurrency(text);
  if (!isCurrency(currency)) throw new ValidationFailedError({ currency: `must be one of ${CURRENCIES.join(', ')} (or a ticker such as BTC or ETH)` });
  return currency;
}

/** The next page's query string (the filter and the last id), or null on the last page. */
function nextQuery(status: string, page: { has_more: boolean; items: Array<{ id: string }> }): string | null {
  const last = page.items.at(-1);
  if (!page.has_more || !last) return null;
  return new URLSearchParams({ ...(status ? { status } : {}), starting_after: last.id }).toString();
}

/**
 * The console's money pages: an invoice (items, payments with their transactions, refunds, events,
 * checkout link) and its actions (void, mark paid, refund), the payments, and the refunds (follow the
 * claim and payout, cancel). Every read and action goes through the owning module's queries and
 * commands in the member's organization and the page's mode; every action is checked against the role
 * table on the server and recorded in the audit log.
 */
@ApiExcludeController()
@Controller('console')
@PublicForm()
export class ConsoleMoneyController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  // ---- invoices ----

  // ---- a new invoice ----

  private readonly validation = new ValidationPipe(validationOptions(true));

  @Get(':mode/invoices/new')
  async newInvoice(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', false);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    res.status(200).send(newInvoicePage(g.ctx, pageStringsOf(g.ctx.lang), { price: '', currency: 'USD', customer_email: '' }, null));
  }

  /** The API's body and validation (POST /invoices/create with one PAYMENT_INTENT item); the invoice's page follows. */
  @ConsoleFormPost(':mode/invoices/new')
  async createInvoice(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    const body = (req.body ?? {}) as Form;
    const form: NewInvoiceForm = {
      price: formText(body.price).trim(),
      currency: formText(body.currency).trim().toUpperCase(),
      customer_email: formText(body.customer_email).trim(),
    };
    try {
      const input = (await this.validation.transform(
        {
          items: [{ type: 'PAYMENT_INTENT', currency: form.currency, price: form.price }],
          ...(form.customer_email ? { customer_email: form.customer_email } : {}),
        },
        { type: 'body', metatype: CreateInvoiceRequestDto },
      )) as CreateInvoiceRequestDto;
      const created = await this.commands.execute(
        new CreateInvoiceCommand(g.scope, {
          items: [{ type: 'PAYMENT_INTENT', currency: input.items[0].currency as Currency, price: input.items[0].price! }],
          currency: null,
          customerEmail: input.customer_email ?? null,
          metadata: {},
          redirectUrl: null,
        }),
      );
      await this.gate.audit(g, req, 'invoice.create', created.id);
      res.redirect(303, `/console/${g.scope.mode}/invoices/${created.id}`);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      res.status(400).send(newInvoicePage(g.ctx, pageStringsOf(g.ctx.lang), form, { kind: 'error', text: e.message }));
    }
  }

  @Get(':mode/invoices/:id')
  async invoice(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const offset = /^\d{1,9}$/.test(formText(req.query.events_offset)) ? Number(formText(req.query.events_offset)) : 0;
    await this.renderInvoice(g, res, id, 200, null, offset);
  }

  private async renderInvoice(g: SignedMember, res: Response, id: string, status: number, n: Notice, eventsOffset = 0): Promise<void> {
    const invoice = await this.gate.found(g, res, () => this.queries.execute(new GetInvoiceQuery(g.scope, id, ['items'], null)));
    if (!invoice) return;
    const [payments, refunds] = await Promise.all([
      this.queries.execute(new ListPaymentsQuery(g.scope, { invoiceId: invoice.id, limit: INVOICE_PAGE_ROWS, offset: 0 })),
      this.queries.execute(new ListRefundsQuery(g.scope, { invoiceId: invoice.id, limit: INVOICE_PAGE_ROWS, offset: 0 })),
    ]);
    // Refundable once a payment completed: past the payments listed, one more read says whether one did.
    const completed = (x: { status: string }) => x.status === 'COMPLETED';
    const refundable =
      payments.items.some(completed) ||
      (payments.total > payments.items.length &&
        (await this.queries.execute(new ListPaymentsQuery(g.scope, { invoiceId: invoice.id, status: ['COMPLETED'], limit: 1, offset: 0 }))).items.length > 0);
    // The events of the invoice and of its payments and refunds, wherever they stand in the mode's history.
    const objectIds = [invoice.id, ...payments.items.map((x) => x.id), ...refunds.items.map((r) => r.id)];
    const events = await this.queries.execute(new ListEventsQuery(g.scope, { objectIds, limit: EVENTS_PAGE, offset: eventsOffset }));
    const own: EventRowView[] = events.items.map((e) => {
      const object = e.data.object as { id?: unknown } | null;
      return { id: e.id, type: e.type, created_at: e.created_at, object_id: typeof object?.id === 'string' ? object.id : '' };
    });
    const html = invoiceDetailPage(
      g.ctx,
      pageStringsOf(g.ctx.lang),
      {
        invoice: {
          ...invoice,
          items: (invoice.items ?? []).map((i) => ({
            id: i.id,
            type: i.type,
            description: i.description ?? null,
            quantity: String(i.quantity),
            price: i.price,
            currency: i.currency,
          })),
        },
        payments: payments.items,
        paymentsTotal: payments.total,
        refundable,
        refunds: refunds.items,
        refundsTotal: refunds.total,
        events: own,
        eventsPage: { offset: eventsOffset, total: events.total, exact: events.total_exact, size: EVENTS_PAGE },
      },
      n,
    );
    res.status(status).send(html);
  }

  /** Runs an action on an invoice and shows the invoice again with what it did (or why it was refused). */
  private async act(g: SignedMember, res: Response, invoiceId: string, run: () => Promise<Notice>): Promise<void> {
    let n: Notice;
    try {
      n = await run();
    } catch (e) {
      return this.refused(g, res, invoiceId, e);
    }
    await this.renderInvoice(g, res, invoiceId, 200, n);
  }

  /** A refusal by the owning module (a state it cannot move from, a bad amount): the invoice page again with its message, 400 (409 on a conflict). */
  private async refused(g: SignedMember, res: Response, invoiceId: string, e: unknown): Promise<void> {
    if (!(e instanceof DomainError)) throw e;
    if (e.kind === 'not_found') return this.gate.notFound(g, res);
    const status = e.kind === 'conflict' ? 409 : e.kind === 'forbidden' ? 403 : 400;
    await this.renderInvoice(g, res, invoiceId, status, { kind: 'error', text: e.message });
  }

  @ConsoleFormPost(':mode/invoices/:id/void')
  async voidInvoice(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    await this.act(g, res, id, async () => {
      await this.commands.execute(new ChangeInvoiceStatusCommand(g.scope, id, 'VOIDED'));
      await this.gate.audit(g, req, 'invoice.void', id);
      return { kind: 'info', text: pageStringsOf(g.ctx.lang).voided };
    });
  }

  @ConsoleFormPost(':mode/invoices/:id/mark-paid')
  async markPaid(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.mark_paid')) return;
    await this.act(g, res, id, async () => {
      await this.commands.execute(new ChangeInvoiceStatusCommand(g.scope, id, 'COMPLETED'));
      await this.gate.audit(g, req, 'invoice.mark_paid', id);
      return { kind: 'info', text: pageStringsOf(g.ctx.lang).marked_paid };
    });
  }

  /** Re-prices a PENDING invoice in another currency, as `POST /invoices/{id}` with `currency` (the same validation and quote). */
  @ConsoleFormPost(':mode/invoices/:id/currency')
  async changeCurrency(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    const currency = formText(((req.body ?? {}) as Form).currency)
      .trim()
      .toUpperCase();
    await this.act(g, res, id, async () => {
      const input = (await this.validation.transform({ currency }, { type: 'body', metatype: UpdateInvoiceRequestDto })) as UpdateInvoiceRequestDto;
      await this.commands.execute(invoiceChangeCommand(g.scope, id, { currency: input.currency as Currency }));
      await this.gate.audit(g, req, 'invoice.change_currency', id);
      return { kind: 'info', text: `${pageStringsOf(g.ctx.lang).currency_changed} ${input.currency}.` };
    });
  }

  @ConsoleFormPost(':mode/invoices/:id/refunds')
  async refundInvoice(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/invoices', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    const body = (req.body ?? {}) as Form;
    const amountText = formText(body.amount).trim();
    const currencyText = formText(body.currency).trim();
    const reason = formText(body.reason).trim().slice(0, 500);
    try {
      const refund = await this.commands.execute(
        new CreateRefundCommand(g.scope, id, {
          amount: amountText ? amountOf(amountText) : null,
          currency: currencyText ? currencyOf(currencyText) : null,
          rate: 'invoice',
          reason: reason || null,
          expiresInMinutes: undefined,
        }),
      );
      await this.gate.audit(g, req, 'refund.create', refund.id);
      res.redirect(303, `/console/${g.scope.mode}/refunds/${refund.id}`);
    } catch (e) {
      await this.refused(g, res, id, e);
    }
  }

  // ---- payments ----

  @Get(':mode/payments')
  async payments(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/payments', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const status = (PAYMENT_STATUSES as readonly string[]).includes(formText(req.query.status)) ? formText(req.query.status) : '';
    const page = await firstPageIfCursorUnknown(req, res, () =>
      this.queries.execute(
        new ListPaymentsQuery(g.scope, {
          status: status ? [status as never] : undefined,
          startingAfter: cursor(req.query.starting_after, 'payment'),
          limit: PAGE_SIZE,
          offset: 0,
        }),
      ),
    );
    if (!page) return;
    res.status(200).send(paymentsPage(g.ctx, pageStringsOf(g.ctx.lang), page.items, status, nextQuery(status, page)));
  }

  @Get(':mode/payments/:id')
  async payment(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/payments', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const payment = await this.gate.found(g, res, () => this.queries.execute(new GetPaymentQuery(g.scope, id)));
    if (!payment) return;
    res.status(200).send(paymentPage(g.ctx, pageStringsOf(g.ctx.lang), payment));
  }

  // ---- refunds ----

  @Get(':mode/refunds')
  async refunds(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/refunds', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const status = (REFUND_STATUSES as readonly string[]).includes(formText(req.query.status)) ? formText(req.query.status) : '';
    const page = await firstPageIfCursorUnknown(req, res, () =>
      this.queries.execute(
        new ListRefundsQuery(g.scope, {
          status: status ? [status as RefundStatus] : undefined,
          startingAfter: cursor(req.query.starting_after, 'refund'),
          limit: PAGE_SIZE,
          offset: 0,
        }),
      ),
    );
    if (!page) return;
    res.status(200).send(refundsPage(g.ctx, pageStringsOf(g.ctx.lang), page.items, status, nextQuery(status, page)));
  }

  @Get(':mode/refunds/:id')
  async refund(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/refunds', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const refund = await this.gate.found(g, res, () => this.queries.execute(new GetRefundQuery(g.scope, id)));
    if (!refund) return;
    res.status(200).send(refundPage(g.ctx, pageStringsOf(g.ctx.lang), refund, null));
  }

  @ConsoleFormPost(':mode/refunds/:id/cancel')
  async cancelRefund(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/refunds', true);
    if (!g || !this.gate.allowed(g, res, 'invoices.write')) return;
    const p = pageStringsOf(g.ctx.lang);
    try {
      const refund = await this.commands.execute(new CancelRefundCommand(g.scope, id));
      await this.gate.audit(g, req, 'refund.cancel', id);
      res.status(200).send(refundPage(g.ctx, p, refund, { kind: 'info', text: p.refund_canceled }));
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.kind === 'not_found') return this.gate.notFound(g, res);
      const refund = await this.queries.execute(new GetRefundQuery(g.scope, id));
      res.status(400).send(refundPage(g.ctx, p, refund, { kind: 'error', text: e.message }));
    }
  }
}
