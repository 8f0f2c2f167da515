import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { DomainError } from '../../shared/errors/domain-error';
import { fromDb, renderAmount, sumAmounts } from '../../shared/money/money';
import { ListInvoicesQuery } from '../invoices';
import {
  CancelSubscriptionCommand,
  GetSubscriptionQuery,
  ListSubscriptionsQuery,
  SUBSCRIPTION_STATUSES,
  UpcomingInvoiceQuery,
  type SubscriptionView,
} from '../subscriptions';
import { ConsoleFormPost, ConsoleGate, Form, formText, SignedMember } from './console-gate';
import type { Notice } from './domain/pages';
import { customerPage, PeriodRowView, subscriptionPage, subscriptionsPage } from './pages/customer-pages';
import { customerStringsOf } from './pages/customer-strings';

const PAGE_SIZE = 25;
/** How many of a customer's latest invoices the customer page (and a subscription's periods) look at. */
const CUSTOMER_WINDOW = 100;

function emailOf(value: unknown): string {
  const t = formText(value).trim().slice(0, 254);
  return /^[^\s@]+@[^\s@]+$/.test(t) ? t : '';
}

/**
 * The console's customer pages: subscriptions (list, detail with the periods billed and the current
 * usage, cancel) and a customer by email (totals, invoices, subscriptions). Reads and the cancel go
 * through the invoices and subscriptions modules' queries and commands in the member's organization
 * and the page's mode; the cancel is checked against the role table and recorded in the audit log.
 */
@ApiExcludeController()
@Controller('console')
@PublicForm()
export class ConsoleCustomersController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @Get(':mode/subscriptions')
  async subscriptions(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/subscriptions', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const status = (SUBSCRIPTION_STATUSES as readonly string[]).includes(formText(req.query.status)) ? formText(req.query.status) : '';
    const email = emailOf(req.query.customer_email);
    const offset = Math.min(Math.max(0, Number.parseInt(formText(req.query.offset), 10) || 0), 100_000);
    const page = await this.queries.execute(
      new ListSubscriptionsQuery(g.scope, { status: status ? [status as never] : undefined, customerEmail: email || undefined }, PAGE_SIZE, offset),
    );
    const next = page.has_more
      ? new URLSearchParams({ ...(status ? { status } : {}), ...(email ? { customer_email: email } : {}), offset: String(offset + PAGE_SIZE) }).toString()
      : null;
    res.status(200).send(subscriptionsPage(g.ctx, customerStringsOf(g.ctx.lang), page.items, { status, email }, next));
  }

  @Get(':mode/subscriptions/:id')
  async subscription(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/subscriptions', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const sub = await this.gate.found(g, res, () => this.queries.execute(new GetSubscriptionQuery(g.scope, id)));
    if (!sub) return;
    await this.renderSubscription(g, res, sub, 200, null);
  }

  private async renderSubscription(g: SignedMember, res: Response, sub: SubscriptionView, status: number, n: Notice): Promise<void> {
    const [invoices, upcoming] = await Promise.all([
      this.queries.execute(new ListInvoicesQuery(g.scope, { customerEmail: sub.customer_email, limit: CUSTOMER_WINDOW, offset: 0 })),
      this.queries.execute(new UpcomingInvoiceQuery(g.scope, sub.id)).catch((e: unknown) => {
        if (e instanceof DomainError && e.kind === 'not_found') return null;
        throw e;
      }),
    ]);
    const periods: PeriodRowView[] = invoices.items
      .filter((i) => i.subscription_id === sub.id)
      .map((i) => ({
        invoice_id: i.id,
        period_start: i.period_start ?? '',
        period_end: i.period_end ?? '',
        status: i.status,
        price: i.price,
        currency: i.currency,
      }));
    res.status(status).send(
      subscriptionPage(
        g.ctx,
        customerStringsOf(g.ctx.lang),
        {
          subscription: sub,
          periods,
          usage: upcoming
            ? upcoming.lines.map((l) => ({ type: l.type, description: l.description, metric_key: l.metric_key, quantity: l.quantity, amount: l.amount }))
            : null,
          upcomingTotal: upcoming?.total ?? null,
          currency: upcoming?.currency ?? null,
        },
        n,
      ),
    );
  }

  @ConsoleFormPost(':mode/subscriptions/:id/cancel')
  async cancel(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/subscriptions', true);
    if (!g || !this.gate.allowed(g, res, 'subscriptions.cancel')) return;
    const t = customerStringsOf(g.ctx.lang);
    const atPeriodEnd = formText((req.body as Form).when) === 'period_end';
    try {
      const sub = await this.commands.execute(new CancelSubscriptionCommand(g.scope, id, atPeriodEnd));
      await this.gate.audit(g, req, atPeriodEnd ? 'subscription.cancel_at_period_end' : 'subscription.cancel', id);
      await this.renderSubscription(g, res, sub, 200, { kind: 'info', text: atPeriodEnd ? t.cancels_at_period_end : t.canceled });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.kind === 'not_found') return this.gate.notFound(g, res);
      const sub = await this.queries.execute(new GetSubscriptionQuery(g.scope, id));
      await this.renderSubscription(g, res, sub, 400, { kind: 'error', text: e.message });
    }
  }

  @Get(':mode/customers')
  async customer(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/customers', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const t = customerStringsOf(g.ctx.lang);
    const email = emailOf(req.query.email);
    if (!email) {
      res.status(200).send(customerPage(g.ctx, t, formText(req.query.email).slice(0, 254), null));
      return;
    }
    const [invoices, subs] = await Promise.all([
      this.queries.execute(new ListInvoicesQuery(g.scope, { customerEmail: email, limit: CUSTOMER_WINDOW, offset: 0 })),
      this.queries.execute(new ListSubscriptionsQuery(g.scope, { customerEmail: email }, CUSTOMER_WINDOW, 0)),
    ]);
    const completed = invoices.items.filter((i) => i.status === 'COMPLETED');
    const paid = sumAmounts(completed.map((i) => fromDb(i.price_usd)));
    const refunded = sumAmounts(invoices.items.map((i) => fromDb(i.refunded_usd)));
    res.status(200).send(
      customerPage(g.ctx, t, email, {
        invoices: invoices.items,
        subscriptions: subs.items,
        totals: {
          invoices: invoices.total,
          completed: completed.length,
          paid_usd: renderAmount(paid),
          refunded_usd: renderAmount(refunded),
          net_usd: renderAmount(paid.minus(refunded)),
        },
        more: invoices.has_more,
      }),
    );
  }
}
