import { canonicalCurrency } from '../../shared/money/currency';
import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';
import { DomainError } from '../../shared/errors/domain-error';
import { parseTimeBound } from '../../shared/time/time';
import { GetDashboardQuery } from '../analytics';
import { INVOICE_STATUSES, ListInvoicesQuery } from '../invoices';
import { CreateApiKeyCommand, ListApiKeysQuery, RevokeApiKeyCommand, RollApiKeyCommand } from '../organizations';
import { ConsoleAssets } from './console-assets';
import { ConsoleAuth, LOCKOUT_MS, newToken } from './console-auth.service';
import { ConsoleFormPost, ConsoleGate, cookies, Form, formText, same, SESSION_COOKIE, SignedMember } from './console-gate';
import { ConsoleExportRoutes } from './exports/console-export-routes';
import { firstPageIfCursorUnknown } from './list-cursor';
import { ListWebhookAttemptsQuery, ListWebhookEndpointsQuery, RedeliverEventCommand } from '../webhooks';
import { webhooksPage, webhookWords } from './domain/webhook-pages';
import {
  auditPage,
  invoicesPage,
  membersPage,
  messagePage,
  Notice,
  overviewPage,
  PERIOD_CHOICES,
  PeriodChoice,
  setPasswordPage,
  signInPage,
} from './domain/pages';
import { GRACE_CHOICES, keysPage, keyWords, mayChangeKey } from './domain/key-pages';
import { isRole, mayAssign, Role } from './domain/roles';
import { ConsoleRepository, MemberRow } from './persistence/console.repository';

const PRE_COOKIE = 'console_pre';

/**
 * The management console (decisions §25), server-rendered HTML under /console: sign-in, one-time
 * links, and the organization's pages. Members authenticate by session cookie (no API key); every
 * form post carries the session's CSRF token; every action is checked against may(role, action,
 * mode) here on the server, and goes through the other modules' commands and queries.
 */
@ApiExcludeController()
@Controller('console')
@PublicForm()
export class ConsoleController {
  constructor(
    @Inject(ConsoleAuth) private readonly auth: ConsoleAuth,
    @Inject(ConsoleRepository) private readonly repo: ConsoleRepository,
    @Inject(ConsoleAssets) private readonly assets: ConsoleAssets,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(ConsoleExportRoutes) private readonly exportRoutes: ConsoleExportRoutes,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
  ) {}

  // ---- plumbing ----

  /** The pre-session CSRF token (sign-in, set password): a cookie the form must repeat. */
  private preToken(req: Request, res: Response): string {
    const existing = cookies(req)[PRE_COOKIE];
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = newToken();
    this.gate.cookie(res, PRE_COOKIE, token, 3600, 'Strict');
    return token;
  }

  // ---- assets and entry ----

  @Get('assets/:file')
  asset(@Param('file') file: string, @Query('v') version: unknown, @Res() res: Response): void {
    const asset = this.assets.files.get(file);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!asset) {
      res.status(404).type('text/plain; charset=utf-8').send('Not found');
      return;
    }
    res.setHeader('Cache-Control', version === this.assets.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    res.status(200).type(asset.contentType).send(asset.body);
  }

  @Get()
  async root(@Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.auth.session(cookies(req)[SESSION_COOKIE]);
    res.redirect(303, session ? '/console/test' : '/console/sign-in');
  }

  // ---- sign-in, one-time links, sign-out ----

  @Get('sign-in')
  signInForm(@Req() req: Request, @Res() res: Response): void {
    this.gate.headers(res);
    const c = this.gate.bare(req, res);
    res.status(200).send(signInPage(c, this.preToken(req, res), '', null));
  }

  @ConsoleFormPost('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.gate.headers(res);
    const c = this.gate.bare(req, res);
    const body = (req.body ?? {}) as Form;
    const pre = cookies(req)[PRE_COOKIE];
    if (!pre || !same(formText(body._csrf), pre)) {
      res.status(403).send(signInPage(c, this.preToken(req, res), formText(body.email), { kind: 'error', text: c.s.csrf_refused }));
      return;
    }
    // Per client address (in addition to the member's lockout): too many failed sign-ins from one address in a
    // minute refuse its sign-ins, a right password included, until the minute ends (RATE_LIMIT_AUTH_FAILURES).
    // The attempt is counted before its check and forgiven if it succeeds, so attempts sent at once cannot all be checked.
    const address = clientBucket(req.ip);
    if (this.limiter.enabled) {
      const budget = await this.limiter.takeAuthAttempt(address);
      if (!budget.allowed) {
        // Refused unchecked: not a failure either (the budget counts the checks that failed or are under way).
        await this.limiter.forgiveAuthAttempt(address);
        res.setHeader('Retry-After', String(budget.resetSeconds));
        res.status(429).send(signInPage(c, pre, formText(body.email), { kind: 'error', text: c.s.too_many_attempts }));
        return;
      }
    }
    const result = await this.auth.signIn(body.email, body.password, req.ip ?? null);
    if (result.ok && this.limiter.enabled) await this.limiter.forgiveAuthAttempt(address);
    if (!result.ok) {
      const status = result.reason === 'locked' ? 429 : 401;
      if (result.reason === 'locked') res.setHeader('Retry-After', String(LOCKOUT_MS / 1000));
      const message = result.reason === 'locked' ? c.s.locked : c.s.invalid_credentials;
      res.status(status).send(signInPage(c, pre, formText(body.email), { kind: 'error', text: message }));
      return;
    }
    await this.repo.audit(
      {
        organization_id: result.member.organization_id,
        mode: null,
        actor_type: 'member',
        actor_id: result.member.id,
        action: 'session.sign_in',
        target: result.member.id,
        ip: req.ip ?? null,
      },
      new Date(),
    );
    this.gate.cookie(res, SESSION_COOKIE, result.token, null);
    res.redirect(303, '/console/test');
  }

  @Get('link/:token')
  async linkForm(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    this.gate.headers(res);
    const c = this.gate.bare(req, res);
    const link = await this.auth.linkMember(token);
    if (!link) {
      res.status(404).send(messagePage(c, c.s.set_password_title, c.s.link_invalid));
      return;
    }
    res.status(200).send(setPasswordPage(c, this.preToken(req, res), token, link.member.email, null));
  }

  @ConsoleFormPost('link/:token')
  async setPassword(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    this.gate.headers(res);
    const c = this.gate.bare(req, res);
    const body = (req.body ?? {}) as Form;
    const link = await this.auth.linkMember(token);
    if (!link) {
      res.status(404).send(messagePage(c, c.s.set_password_title, c.s.link_invalid));
      return;
    }
    const pre = cookies(req)[PRE_COOKIE];
    if (!pre || !same(formText(body._csrf), pre)) {
      res.status(403).send(setPasswordPage(c, this.preToken(req, res), token, link.member.email, { kind: 'error', text: c.s.csrf_refused }));
      return;
    }
    try {
      const member = await this.auth.setPasswordByLink(token, formText(body.password));
      if (!member) {
        res.status(404).send(messagePage(c, c.s.set_password_title, c.s.link_invalid));
        return;
      }
      await this.repo.audit(
        {
          organization_id: member.organization_id,
          mode: null,
          actor_type: 'member',
          actor_id: member.id,
          action: link.kind === 'invite' ? 'member.accept_invite' : 'member.reset_password',
          target: member.id,
          ip: req.ip ?? null,
        },
        new Date(),
      );
      res.status(200).send(signInPage(c, pre, member.email, { kind: 'info', text: c.s.password_set }));
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      res.status(400).send(setPasswordPage(c, pre, token, link.member.email, { kind: 'error', text: c.s.new_password }));
    }
  }

  @ConsoleFormPost('sign-out')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, 'test', '', true);
    if (!g) return;
    await this.auth.signOut(g.session.tokenHash);
    this.gate.cookie(res, SESSION_COOKIE, '', 0);
    res.redirect(303, '/console/sign-in');
  }

  @ConsoleFormPost('sign-out-everywhere')
  async signOutEverywhere(@Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, 'test', '', true);
    if (!g) return;
    await this.auth.signOutEverywhere(g.member.id);
    await this.gate.audit(g, req, 'session.sign_out_everywhere', g.member.id, null);
    this.gate.cookie(res, SESSION_COOKIE, '', 0);
    res.redirect(303, '/console/sign-in');
  }

  // ---- pages of a mode ----

  @Get(':mode')
  async overview(@Param('mode') modeText: string, @Query('period') periodText: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const period: PeriodChoice = (PERIOD_CHOICES as readonly unknown[]).includes(periodText) ? (periodText as PeriodChoice) : 'last_30_days';
    const view = await this.queries.execute(new GetDashboardQuery(g.scope, period));
    res.status(200).send(
      overviewPage(g.ctx, {
        period,
        invoices: view.invoices,
        series: view.series,
        // GetDashboardQuery's handler always fills the refunds' figures (optional only in the domain's view).
        refunded_usd: view.refunds!.refunded_usd,
        net_volume_usd: view.net_volume_usd!,
        providers: view.providers,
        top_customers: view.customers.top,
      }),
    );
  }

  @Get(':mode/invoices')
  async invoices(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/invoices', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const q = req.query;
    const f = {
      status: (INVOICE_STATUSES as readonly string[]).includes(formText(q.status)) ? formText(q.status) : '',
      // As the API and the export read it: a code or its ticker (btc is BITCOIN).
      currency: /^[A-Za-z0-9_]{1,20}$/.test(formText(q.currency)) ? String(canonicalCurrency(formText(q.currency).toUpperCase())) : '',
      customer_email: formText(q.customer_email).slice(0, 254),
      created_from: formText(q.created_from).trim().slice(0, 40),
      created_to: formText(q.created_to).trim().slice(0, 40),
    };
    // The period's days as the API reads them (a day that does not exist, such as 2024-13-45, is refused
    // naming the field, not sent to the database); "created before" is the start of that day.
    const createdFrom = f.created_from ? parseTimeBound(f.created_from, 'from') : undefined;
    const createdTo = f.created_to ? parseTimeBound(f.created_to, 'from') : undefined;
    if (createdFrom === null || createdTo === null) {
      const field = createdFrom === null ? g.ctx.s.created_from : g.ctx.s.created_to;
      res.status(400).send(invoicesPage(g.ctx, [], f, null, { kind: 'error', text: `${field}: ${g.ctx.s.bad_date}` }));
      return;
    }
    const after = /^invoice_[0-9a-f-]{36}$/.test(formText(q.starting_after)) ? formText(q.starting_after) : undefined;
    const limit = 25;
    const page = await firstPageIfCursorUnknown(req, res, () =>
      this.queries.execute(
        new ListInvoicesQuery(g.scope, {
          status: f.status ? [f.status as never] : undefined,
          currency: f.currency ? [f.currency as never] : undefined,
          customerEmail: f.customer_email || undefined,
          createdFrom,
          createdTo,
          startingAfter: after,
          limit,
          offset: 0,
        }),
      ),
    );
    if (!page) return;
    const last = page.items.at(-1);
    const next =
      page.has_more && last ? new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, v]) => v)), starting_after: last.id }).toString() : null;
    res.status(200).send(invoicesPage(g.ctx, page.items, f, next));
  }

  @Get(':mode/api-keys')
  async apiKeys(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/api-keys', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    await this.renderKeys(g, res, 200, null, null);
  }

  private async renderKeys(
    g: SignedMember,
    res: Response,
    status: number,
    n: Notice,
    secret: string | null,
    rolled: { expires_at: string } | null = null,
  ): Promise<void> {
    const keys = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).filter((k) => k.mode === g.scope.mode);
    res.status(status).send(keysPage(g.ctx, keys, n, secret, rolled));
  }

  @ConsoleFormPost(':mode/api-keys')
  async createKey(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const readOnly = formText((req.body as Form).access) !== 'full';
    if (!this.gate.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, readOnly, g.scope.mode))) return;
    const name = formText((req.body as Form).name).trim();
    if (name.length > 100) {
      await this.renderKeys(g, res, 400, { kind: 'error', text: `${keyWords(g.ctx.lang).name}: 100` }, null);
      return;
    }
    const issued = await this.commands.execute(new CreateApiKeyCommand(g.scope.organizationId, g.scope.mode, readOnly, name));
    await this.gate.audit(g, req, readOnly ? 'api_key.create_read_only' : 'api_key.create', issued.id);
    await this.renderKeys(g, res, 201, null, issued.key);
  }

  @ConsoleFormPost(':mode/api-keys/:id/revoke')
  async revokeKey(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const key = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).find((k) => k.id === id && k.mode === g.scope.mode);
    if (!key) {
      this.gate.notFound(g, res);
      return;
    }
    if (!this.gate.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, key.read_only, g.scope.mode))) return;
    if (!key.revoked_at) await this.commands.execute(new RevokeApiKeyCommand(key.prefix, g.scope.organizationId));
    await this.gate.audit(g, req, 'api_key.revoke', key.id);
    await this.renderKeys(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @ConsoleFormPost(':mode/api-keys/:id/roll')
  async rollKey(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const key = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).find((k) => k.id === id && k.mode === g.scope.mode);
    if (!key) {
      this.gate.notFound(g, res);
      return;
    }
    if (!this.gate.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, key.read_only, g.scope.mode))) return;
    const grace = formText((req.body as Form).grace_seconds);
    if (!(GRACE_CHOICES as readonly string[]).includes(grace)) {
      await this.renderKeys(g, res, 400, { kind: 'error', text: `${keyWords(g.ctx.lang).grace}: ${GRACE_CHOICES.join(', ')}` }, null);
      return;
    }
    try {
      const rolled = await this.commands.execute(new RollApiKeyCommand(g.scope.organizationId, g.scope.mode, key.id, Number(grace)));
      await this.gate.audit(g, req, 'api_key.roll', key.id);
      await this.renderKeys(g, res, 201, null, rolled.issued.key, rolled.previous);
    } catch (e) {
      if (!(e instanceof DomainError) || e.kind !== 'validation') throw e;
      await this.renderKeys(g, res, 400, { kind: 'error', text: e.message }, null);
    }
  }

  @Get(':mode/exports')
  async exportsPage(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/exports', false);
    if (!g || !this.gate.allowed(g, res, 'exports')) return;
    this.exportRoutes.page(g.ctx, res);
  }

  @Get(':mode/exports/:file')
  async exportCsv(@Param('mode') modeText: string, @Param('file') file: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/exports', false);
    if (!g || !this.gate.allowed(g, res, 'exports')) return;
    await this.exportRoutes.csv(g.ctx, g.scope, file, req.query, res);
  }

  @Get(':mode/webhooks')
  async webhooks(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/webhooks', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    await this.renderWebhooks(g, res, 200, null);
  }

  private async renderWebhooks(g: SignedMember, res: Response, status: number, n: Notice): Promise<void> {
    const endpoints = (await this.queries.execute(new ListWebhookEndpointsQuery(g.scope, 100, 0))).items;
    const sections = await Promise.all(
      endpoints.map(async (endpoint) => ({
        endpoint,
        attempts: (await this.queries.execute(new ListWebhookAttemptsQuery(g.scope, endpoint.id, { limit: 25 }))).items,
      })),
    );
    res.status(status).send(webhooksPage(g.ctx, sections, n));
  }

  @ConsoleFormPost(':mode/webhooks/:id/resend')
  async resendWebhook(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/webhooks', true);
    if (!g || !this.gate.allowed(g, res, 'webhooks.manage')) return;
    try {
      const queued = await this.commands.execute(new RedeliverEventCommand(g.scope, id, formText((req.body as Form).event_id)));
      await this.gate.audit(g, req, 'webhook.resend', queued.delivery_id);
      await this.renderWebhooks(g, res, 201, { kind: 'info', text: `${webhookWords(g.ctx.lang).queued} ${queued.delivery_id}` });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.kind === 'not_found') {
        this.gate.notFound(g, res);
        return;
      }
      if (e.kind !== 'validation') throw e;
      await this.renderWebhooks(g, res, 400, { kind: 'error', text: e.message });
    }
  }

  @Get(':mode/members')
  async members(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    await this.renderMembers(g, res, 200, null, null);
  }

  private async renderMembers(g: SignedMember, res: Response, status: number, n: Notice, link: { text: string; url: string } | null): Promise<void> {
    const now = new Date();
    const rows = await this.repo.members(g.scope.organizationId);
    res.status(status).send(
      membersPage(
        g.ctx,
        rows.map((m) => ({
          id: m.id,
          email: m.email,
          name: m.name,
          role: m.role,
          last_sign_in_at: m.last_sign_in_at ? m.last_sign_in_at.toISOString() : null,
          pending: !m.password_hash,
          locked: !!m.locked_until && m.locked_until > now,
        })),
        n,
        link,
      ),
    );
  }

  @ConsoleFormPost(':mode/members')
  async invite(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const body = req.body as Form;
    const role = formText(body.role);
    if (!this.gate.allowed(g, res, 'members.manage')) return;
    if (!isRole(role)) {
      await this.renderMembers(g, res, 400, { kind: 'error', text: `${g.ctx.s.role}: owner, admin, developer, analyst, support` }, null);
      return;
    }
    if (!this.gate.allowed(g, res, 'members.manage', mayAssign(g.member.role, null, role))) return;
    try {
      const link = await this.auth.issueLink(g.scope.organizationId, body.email, 'invite', role, formText(body.name), g.member.role);
      await this.gate.audit(g, req, 'member.invite', link.member_id, null);
      await this.renderMembers(g, res, 201, null, { text: g.ctx.s.invite_link, url: link.url });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      // The email's invitation is pending with a role the member may not change (an owner's, for an admin).
      if (e.kind === 'forbidden') {
        this.gate.allowed(g, res, 'members.manage', false);
        return;
      }
      const message = e.code === 'member_exists' ? g.ctx.s.member_exists : e.message;
      await this.renderMembers(g, res, e.kind === 'conflict' ? 409 : 400, { kind: 'error', text: message }, null);
    }
  }

  /** The member `id` of the signed-in member's organization (another organization's id: 404). */
  private async target(g: SignedMember, res: Response, id: string): Promise<MemberRow | null> {
    const m = await this.repo.memberById(g.scope.organizationId, id);
    if (!m) this.gate.notFound(g, res);
    return m;
  }

  @ConsoleFormPost(':mode/members/:id/role')
  async changeRole(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m) return;
    const role = formText((req.body as Form).role);
    if (!isRole(role)) {
      await this.renderMembers(g, res, 400, { kind: 'error', text: `${g.ctx.s.role}: owner, admin, developer, analyst, support` }, null);
      return;
    }
    await this.changeMember(g, req, res, m, role);
  }

  @ConsoleFormPost(':mode/members/:id/remove')
  async remove(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m) return;
    await this.changeMember(g, req, res, m, null);
  }

  private async changeMember(g: SignedMember, req: Request, res: Response, m: MemberRow, to: Role | null): Promise<void> {
    if (!this.gate.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, to))) return;
    // The page's reading of the member may be out of date: the statement checks both rules again under the lock.
    const outcome = await this.repo.changeRole(g.scope.organizationId, m.id, to, g.member.role);
    if (outcome === 'gone') return this.gate.notFound(g, res);
    if (outcome === 'forbidden') {
      this.gate.allowed(g, res, 'members.manage', false);
      return;
    }
    if (outcome === 'last_owner') {
      await this.renderMembers(g, res, 409, { kind: 'error', text: g.ctx.s.last_owner }, null);
      return;
    }
    if (to === null) await this.auth.signOutEverywhere(m.id);
    await this.gate.audit(g, req, to === null ? 'member.remove' : `member.role.${to}`, m.id, null);
    if (to === null && m.id === g.member.id) {
      this.gate.cookie(res, SESSION_COOKIE, '', 0);
      res.redirect(303, '/console/sign-in');
      return;
    }
    await this.renderMembers(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @ConsoleFormPost(':mode/members/:id/reset')
  async reset(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m || !this.gate.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, m.role))) return;
    const link = await this.auth.issueLink(g.scope.organizationId, m.email, m.password_hash ? 'reset' : 'invite', m.role, '', g.member.role);
    await this.gate.audit(g, req, 'member.reset_link', m.id, null);
    await this.renderMembers(g, res, 200, null, { text: m.password_hash ? g.ctx.s.reset_link : g.ctx.s.invite_link, url: link.url });
  }

  @ConsoleFormPost(':mode/members/:id/unlock')
  async unlock(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m || !this.gate.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, m.role))) return;
    await this.repo.unlock(g.scope.organizationId, m.id);
    await this.gate.audit(g, req, 'member.unlock', m.id, null);
    await this.renderMembers(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @Get(':mode/audit')
  async auditLog(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, modeText, '/audit', false);
    if (!g || !this.gate.allowed(g, res, 'audit_log.read')) return;
    const rows = await this.repo.auditLog(g.scope.organizationId, 100);
    const members = new Map((await this.repo.members(g.scope.organizationId)).map((m) => [m.id, m.email]));
    res.status(200).send(
      auditPage(
        g.ctx,
        rows.map((r) => ({
          created_at: r.created_at.toISOString(),
          actor: r.actor_type === 'member' ? (members.get(r.actor_id) ?? r.actor_id) : `key ${r.actor_id}`,
          action: r.action,
          target: r.target,
          mode: r.mode,
          ip: r.ip,
        })),
      ),
    );
  }
}
