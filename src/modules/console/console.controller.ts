import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { READS_BODY } from '../../shared/http/object-body';
import type { Mode, Scope } from '../../shared/auth/request-context';
import { AppConfig } from '../../shared/config/app-config';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';
import { DomainError } from '../../shared/errors/domain-error';
import type { OrgId } from '../../shared/ids/ids';
import { GetDashboardQuery } from '../analytics';
import { ListInvoicesQuery } from '../invoices';
import { CreateApiKeyCommand, GetOrganizationProfileQuery, ListApiKeysQuery, RevokeApiKeyCommand, RollApiKeyCommand } from '../organizations';
import { ConsoleAssets } from './console-assets';
import { ConsoleAuth, ConsoleSession, LOCKOUT_MS, newToken } from './console-auth.service';
import { ConsoleExportRoutes } from './exports/console-export-routes';
import { ListWebhookAttemptsQuery, ListWebhookEndpointsQuery, RedeliverEventCommand } from '../webhooks';
import { webhooksPage, webhookWords } from './domain/webhook-pages';
import {
  auditPage,
  BareContext,
  INVOICE_STATUSES,
  invoicesPage,
  membersPage,
  messagePage,
  Notice,
  overviewPage,
  PageContext,
  PERIOD_CHOICES,
  PeriodChoice,
  setPasswordPage,
  signInPage,
} from './domain/pages';
import { GRACE_CHOICES, keysPage, keyWords, mayChangeKey } from './domain/key-pages';
import { Action, isRole, keepsAnOwner, may, mayAssign, Role } from './domain/roles';
import { chooseConsoleLanguage, ConsoleLanguage, stringsOf } from './domain/strings';
import { ConsoleRepository, MemberRow } from './persistence/console.repository';

const SESSION_COOKIE = 'console_session';
const PRE_COOKIE = 'console_pre';
const LANG_COOKIE = 'console_lang';

type Form = Record<string, unknown>;

/** A form post: the handler reads req.body itself (so the bodiless-route check leaves its fields alone). */
const FormPost =
  (path: string): MethodDecorator =>
  (target, key, descriptor) => {
    Reflect.defineMetadata(READS_BODY, true, target.constructor, key as string);
    return Post(path)(target, key, descriptor);
  };

function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

function same(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function modeOf(value: string): Mode | null {
  return value === 'test' || value === 'live' ? value : null;
}

/** A signed-in request: the member, the session and the page context. */
interface Signed {
  s: ConsoleSession;
  member: MemberRow;
  ctx: PageContext;
  scope: Scope;
}

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
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(ConsoleExportRoutes) private readonly exportRoutes: ConsoleExportRoutes,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
  ) {}

  // ---- plumbing ----

  private cookie(res: Response, name: string, value: string, maxAgeSeconds: number | null, sameSite = 'Lax'): void {
    const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/console', 'HttpOnly', `SameSite=${sameSite}`];
    if (this.config.isProduction) parts.push('Secure');
    if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
    const prev = res.getHeader('Set-Cookie');
    res.setHeader('Set-Cookie', [...(Array.isArray(prev) ? prev : prev ? [String(prev)] : []), parts.join('; ')]);
  }

  /** Headers of every console answer: strict CSP (scripts and styles from the service only), no caching. */
  private htmlHeaders(res: Response): void {
    const base = this.config.publicBaseUrl;
    const self = ["'self'", ...(base ? [new URL(base).origin] : [])].join(' ');
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src ${self}; style-src ${self}; img-src ${self}; connect-src ${self}; form-action ${self}; base-uri 'none'; object-src 'none'; frame-ancestors 'none'`,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    res.type('text/html; charset=utf-8');
  }

  private language(req: Request, res: Response): ConsoleLanguage {
    const q = req.query.lang;
    if (q === 'en' || q === 'de') {
      this.cookie(res, LANG_COOKIE, q, 365 * 24 * 3600);
      return q;
    }
    const saved = cookies(req)[LANG_COOKIE];
    return chooseConsoleLanguage(saved, req.headers['accept-language']);
  }

  private bare(req: Request, res: Response): BareContext {
    const lang = this.language(req, res);
    return { lang, s: stringsOf(lang), assetVersion: this.assets.version };
  }

  /** The pre-session CSRF token (sign-in, set password): a cookie the form must repeat. */
  private preToken(req: Request, res: Response): string {
    const existing = cookies(req)[PRE_COOKIE];
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = newToken();
    this.cookie(res, PRE_COOKIE, token, 3600, 'Strict');
    return token;
  }

  private clientIp(req: Request): string | null {
    return req.ip ?? null;
  }

  /** The signed-in member for a page in `modeText`, or null after answering (sign-in redirect, 404, CSRF refusal). */
  private async signed(req: Request, res: Response, modeText: string, path: string, post: boolean): Promise<Signed | null> {
    this.htmlHeaders(res);
    const mode = modeOf(modeText);
    const session = await this.auth.session(cookies(req)[SESSION_COOKIE]);
    if (!session) {
      if (post || req.headers['hx-request']) {
        res.setHeader('HX-Redirect', '/console/sign-in');
        res.status(401).send(messagePage(this.bare(req, res), stringsOf('en').sign_in, this.bare(req, res).s.session_expired));
      } else {
        res.redirect(303, '/console/sign-in');
      }
      return null;
    }
    const lang = this.language(req, res);
    const s = stringsOf(lang);
    const org = await this.queries.execute(new GetOrganizationProfileQuery(session.member.organization_id));
    if (!mode) {
      res.status(404).send(messagePage({ lang, s, assetVersion: this.assets.version }, s.not_found, s.not_found));
      return null;
    }
    const ctx: PageContext = {
      lang,
      s,
      assetVersion: this.assets.version,
      mode,
      csrf: session.session.csrf_token,
      member: { id: session.member.id, email: session.member.email, role: session.member.role },
      organizationName: org?.name ?? '',
      path,
    };
    if (post) {
      const body = (req.body ?? {}) as Form;
      const token = text(body._csrf) || text(req.headers['x-csrf-token']);
      if (!same(token, session.session.csrf_token)) {
        res.status(403).send(messagePage(ctx, s.forbidden, s.csrf_refused));
        return null;
      }
    }
    return { s: session, member: session.member, ctx, scope: { organizationId: session.member.organization_id as OrgId, mode } };
  }

  /** The role table, enforced: false after answering 403. */
  private allowed(g: Signed, res: Response, action: Action, ok = may(g.member.role, action, g.scope.mode)): boolean {
    if (ok) return true;
    res.status(403).send(messagePage(g.ctx, g.ctx.s.forbidden, g.ctx.s.forbidden));
    return false;
  }

  private audit(g: Signed, req: Request, action: string, target: string | null, mode: Mode | null = g.scope.mode): Promise<void> {
    return this.repo.audit(
      { organization_id: g.scope.organizationId, mode, actor_type: 'member', actor_id: g.member.id, action, target, ip: this.clientIp(req) },
      new Date(),
    );
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
    this.htmlHeaders(res);
    const c = this.bare(req, res);
    res.status(200).send(signInPage(c, this.preToken(req, res), '', null));
  }

  @FormPost('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.htmlHeaders(res);
    const c = this.bare(req, res);
    const body = (req.body ?? {}) as Form;
    const pre = cookies(req)[PRE_COOKIE];
    if (!pre || !same(text(body._csrf), pre)) {
      res.status(403).send(signInPage(c, this.preToken(req, res), text(body.email), { kind: 'error', text: c.s.csrf_refused }));
      return;
    }
    // Per client address (in addition to the member's lockout): too many failed sign-ins from one address in a
    // minute refuse its sign-ins, a right password included, until the minute ends (RATE_LIMIT_AUTH_FAILURES).
    const address = clientBucket(req.ip);
    if (this.limiter.enabled) {
      const budget = await this.limiter.authFailuresAllowed(address);
      if (!budget.allowed) {
        res.setHeader('Retry-After', String(budget.resetSeconds));
        res.status(429).send(signInPage(c, pre, text(body.email), { kind: 'error', text: c.s.too_many_attempts }));
        return;
      }
    }
    const result = await this.auth.signIn(body.email, body.password, this.clientIp(req));
    if (!result.ok && this.limiter.enabled) await this.limiter.recordAuthFailure(address);
    if (!result.ok) {
      const status = result.reason === 'locked' ? 429 : 401;
      if (result.reason === 'locked') res.setHeader('Retry-After', String(LOCKOUT_MS / 1000));
      const message = result.reason === 'locked' ? c.s.locked : c.s.invalid_credentials;
      res.status(status).send(signInPage(c, pre, text(body.email), { kind: 'error', text: message }));
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
        ip: this.clientIp(req),
      },
      new Date(),
    );
    this.cookie(res, SESSION_COOKIE, result.token, null);
    res.redirect(303, '/console/test');
  }

  @Get('link/:token')
  async linkForm(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    this.htmlHeaders(res);
    const c = this.bare(req, res);
    const link = await this.auth.linkMember(token);
    if (!link) {
      res.status(404).send(messagePage(c, c.s.set_password_title, c.s.link_invalid));
      return;
    }
    res.status(200).send(setPasswordPage(c, this.preToken(req, res), token, link.member.email, null));
  }

  @FormPost('link/:token')
  async setPassword(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    this.htmlHeaders(res);
    const c = this.bare(req, res);
    const body = (req.body ?? {}) as Form;
    const link = await this.auth.linkMember(token);
    if (!link) {
      res.status(404).send(messagePage(c, c.s.set_password_title, c.s.link_invalid));
      return;
    }
    const pre = cookies(req)[PRE_COOKIE];
    if (!pre || !same(text(body._csrf), pre)) {
      res.status(403).send(setPasswordPage(c, this.preToken(req, res), token, link.member.email, { kind: 'error', text: c.s.csrf_refused }));
      return;
    }
    try {
      const member = await this.auth.setPasswordByLink(token, text(body.password));
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
          ip: this.clientIp(req),
        },
        new Date(),
      );
      res.status(200).send(signInPage(c, pre, member.email, { kind: 'info', text: c.s.password_set }));
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      res.status(400).send(setPasswordPage(c, pre, token, link.member.email, { kind: 'error', text: c.s.new_password }));
    }
  }

  @FormPost('sign-out')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, 'test', '', true);
    if (!g) return;
    await this.auth.signOut(g.s.tokenHash);
    this.cookie(res, SESSION_COOKIE, '', 0);
    res.redirect(303, '/console/sign-in');
  }

  @FormPost('sign-out-everywhere')
  async signOutEverywhere(@Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, 'test', '', true);
    if (!g) return;
    await this.auth.signOutEverywhere(g.member.id);
    await this.audit(g, req, 'session.sign_out_everywhere', g.member.id, null);
    this.cookie(res, SESSION_COOKIE, '', 0);
    res.redirect(303, '/console/sign-in');
  }

  // ---- pages of a mode ----

  @Get(':mode')
  async overview(@Param('mode') modeText: string, @Query('period') periodText: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '', false);
    if (!g || !this.allowed(g, res, 'read')) return;
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
    const g = await this.signed(req, res, modeText, '/invoices', false);
    if (!g || !this.allowed(g, res, 'read')) return;
    const q = req.query;
    const f = {
      status: INVOICE_STATUSES.includes(text(q.status)) ? text(q.status) : '',
      currency: /^[A-Za-z0-9_]{1,20}$/.test(text(q.currency)) ? text(q.currency).toUpperCase() : '',
      customer_email: text(q.customer_email).slice(0, 254),
      created_from: /^\d{4}-\d{2}-\d{2}$/.test(text(q.created_from)) ? text(q.created_from) : '',
      created_to: /^\d{4}-\d{2}-\d{2}$/.test(text(q.created_to)) ? text(q.created_to) : '',
    };
    const after = /^invoice_[0-9a-f-]{36}$/.test(text(q.starting_after)) ? text(q.starting_after) : undefined;
    const limit = 25;
    const page = await this.queries.execute(
      new ListInvoicesQuery(g.scope, {
        status: f.status ? [f.status as never] : undefined,
        currency: f.currency ? [f.currency as never] : undefined,
        customerEmail: f.customer_email || undefined,
        createdFrom: f.created_from ? new Date(`${f.created_from}T00:00:00Z`) : undefined,
        createdTo: f.created_to ? new Date(`${f.created_to}T00:00:00Z`) : undefined,
        startingAfter: after,
        limit,
        offset: 0,
      }),
    );
    const last = page.items.at(-1);
    const next =
      page.has_more && last ? new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, v]) => v)), starting_after: last.id }).toString() : null;
    res.status(200).send(invoicesPage(g.ctx, page.items, f, next));
  }

  @Get(':mode/api-keys')
  async apiKeys(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/api-keys', false);
    if (!g || !this.allowed(g, res, 'read')) return;
    await this.renderKeys(g, res, 200, null, null);
  }

  private async renderKeys(
    g: Signed,
    res: Response,
    status: number,
    n: Notice,
    secret: string | null,
    rolled: { expires_at: string } | null = null,
  ): Promise<void> {
    const keys = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).filter((k) => k.mode === g.scope.mode);
    res.status(status).send(keysPage(g.ctx, keys, n, secret, rolled));
  }

  @FormPost(':mode/api-keys')
  async createKey(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const readOnly = text((req.body as Form).access) !== 'full';
    if (!this.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, readOnly, g.scope.mode))) return;
    const name = text((req.body as Form).name).trim();
    if (name.length > 100) {
      await this.renderKeys(g, res, 400, { kind: 'error', text: `${keyWords(g.ctx.lang).name}: 100` }, null);
      return;
    }
    const issued = await this.commands.execute(new CreateApiKeyCommand(g.scope.organizationId, g.scope.mode, readOnly, name));
    await this.audit(g, req, readOnly ? 'api_key.create_read_only' : 'api_key.create', issued.id);
    await this.renderKeys(g, res, 201, null, issued.key);
  }

  @FormPost(':mode/api-keys/:id/revoke')
  async revokeKey(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const key = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).find((k) => k.id === id && k.mode === g.scope.mode);
    if (!key) {
      res.status(404).send(messagePage(g.ctx, g.ctx.s.not_found, g.ctx.s.not_found));
      return;
    }
    if (!this.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, key.read_only, g.scope.mode))) return;
    if (!key.revoked_at) await this.commands.execute(new RevokeApiKeyCommand(key.prefix, g.scope.organizationId));
    await this.audit(g, req, 'api_key.revoke', key.id);
    await this.renderKeys(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @FormPost(':mode/api-keys/:id/roll')
  async rollKey(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/api-keys', true);
    if (!g) return;
    const key = (await this.queries.execute(new ListApiKeysQuery(g.scope.organizationId))).find((k) => k.id === id && k.mode === g.scope.mode);
    if (!key) {
      res.status(404).send(messagePage(g.ctx, g.ctx.s.not_found, g.ctx.s.not_found));
      return;
    }
    if (!this.allowed(g, res, 'api_keys.read_only', mayChangeKey(g.member.role, key.read_only, g.scope.mode))) return;
    const grace = text((req.body as Form).grace_seconds);
    if (!(GRACE_CHOICES as readonly string[]).includes(grace)) {
      await this.renderKeys(g, res, 400, { kind: 'error', text: `${keyWords(g.ctx.lang).grace}: ${GRACE_CHOICES.join(', ')}` }, null);
      return;
    }
    try {
      const rolled = await this.commands.execute(new RollApiKeyCommand(g.scope.organizationId, g.scope.mode, key.id, Number(grace)));
      await this.audit(g, req, 'api_key.roll', key.id);
      await this.renderKeys(g, res, 201, null, rolled.issued.key, rolled.previous);
    } catch (e) {
      if (!(e instanceof DomainError) || e.kind !== 'validation') throw e;
      await this.renderKeys(g, res, 400, { kind: 'error', text: e.message }, null);
    }
  }

  @Get(':mode/exports')
  async exportsPage(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/exports', false);
    if (!g || !this.allowed(g, res, 'exports')) return;
    this.exportRoutes.page(g.ctx, res);
  }

  @Get(':mode/exports/:file')
  async exportCsv(@Param('mode') modeText: string, @Param('file') file: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/exports', false);
    if (!g || !this.allowed(g, res, 'exports')) return;
    await this.exportRoutes.csv(g.ctx, g.scope, file, req.query, res);
  }

  @Get(':mode/webhooks')
  async webhooks(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/webhooks', false);
    if (!g || !this.allowed(g, res, 'read')) return;
    await this.renderWebhooks(g, res, 200, null);
  }

  private async renderWebhooks(g: Signed, res: Response, status: number, n: Notice): Promise<void> {
    const endpoints = (await this.queries.execute(new ListWebhookEndpointsQuery(g.scope, 100, 0))).items;
    const sections = await Promise.all(
      endpoints.map(async (endpoint) => ({
        endpoint,
        attempts: (await this.queries.execute(new ListWebhookAttemptsQuery(g.scope, endpoint.id, { limit: 25 }))).items,
      })),
    );
    res.status(status).send(webhooksPage(g.ctx, sections, n));
  }

  @FormPost(':mode/webhooks/:id/resend')
  async resendWebhook(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/webhooks', true);
    if (!g || !this.allowed(g, res, 'webhooks.manage')) return;
    try {
      const queued = await this.commands.execute(new RedeliverEventCommand(g.scope, id, text((req.body as Form).event_id)));
      await this.audit(g, req, 'webhook.resend', queued.delivery_id);
      await this.renderWebhooks(g, res, 201, { kind: 'info', text: `${webhookWords(g.ctx.lang).queued} ${queued.delivery_id}` });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.kind === 'not_found') {
        res.status(404).send(messagePage(g.ctx, g.ctx.s.not_found, g.ctx.s.not_found));
        return;
      }
      if (e.kind !== 'validation') throw e;
      await this.renderWebhooks(g, res, 400, { kind: 'error', text: e.message });
    }
  }

  @Get(':mode/members')
  async members(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', false);
    if (!g || !this.allowed(g, res, 'read')) return;
    await this.renderMembers(g, res, 200, null, null);
  }

  private async renderMembers(g: Signed, res: Response, status: number, n: Notice, link: { text: string; url: string } | null): Promise<void> {
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

  @FormPost(':mode/members')
  async invite(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const body = req.body as Form;
    const role = text(body.role);
    if (!this.allowed(g, res, 'members.manage', isRole(role) && mayAssign(g.member.role, null, role))) return;
    try {
      const link = await this.auth.issueLink(g.scope.organizationId, body.email, 'invite', role, text(body.name));
      await this.audit(g, req, 'member.invite', link.member_id, null);
      await this.renderMembers(g, res, 201, null, { text: g.ctx.s.invite_link, url: link.url });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      const message = e.code === 'member_exists' ? g.ctx.s.member_exists : e.message;
      await this.renderMembers(g, res, e.kind === 'conflict' ? 409 : 400, { kind: 'error', text: message }, null);
    }
  }

  /** The member `id` of the signed-in member's organization (another organization's id: 404). */
  private async target(g: Signed, res: Response, id: string): Promise<MemberRow | null> {
    const m = await this.repo.memberById(g.scope.organizationId, id);
    if (!m) res.status(404).send(messagePage(g.ctx, g.ctx.s.not_found, g.ctx.s.not_found));
    return m;
  }

  @FormPost(':mode/members/:id/role')
  async changeRole(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m) return;
    const role = text((req.body as Form).role);
    if (!isRole(role)) {
      await this.renderMembers(g, res, 400, { kind: 'error', text: `${g.ctx.s.role}: owner, admin, developer, analyst, support` }, null);
      return;
    }
    await this.changeMember(g, req, res, m, role);
  }

  @FormPost(':mode/members/:id/remove')
  async remove(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m) return;
    await this.changeMember(g, req, res, m, null);
  }

  private async changeMember(g: Signed, req: Request, res: Response, m: MemberRow, to: Role | null): Promise<void> {
    if (!this.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, to))) return;
    const owners = await this.repo.countOwners(g.scope.organizationId);
    if (!keepsAnOwner(m.role, to, owners) || !(await this.repo.changeRole(g.scope.organizationId, m.id, to))) {
      await this.renderMembers(g, res, 409, { kind: 'error', text: g.ctx.s.last_owner }, null);
      return;
    }
    if (to === null) await this.auth.signOutEverywhere(m.id);
    await this.audit(g, req, to === null ? 'member.remove' : `member.role.${to}`, m.id, null);
    if (to === null && m.id === g.member.id) {
      this.cookie(res, SESSION_COOKIE, '', 0);
      res.redirect(303, '/console/sign-in');
      return;
    }
    await this.renderMembers(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @FormPost(':mode/members/:id/reset')
  async reset(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m || !this.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, m.role))) return;
    const link = await this.auth.issueLink(g.scope.organizationId, m.email, m.password_hash ? 'reset' : 'invite', m.role);
    await this.audit(g, req, 'member.reset_link', m.id, null);
    await this.renderMembers(g, res, 200, null, { text: m.password_hash ? g.ctx.s.reset_link : g.ctx.s.invite_link, url: link.url });
  }

  @FormPost(':mode/members/:id/unlock')
  async unlock(@Param('mode') modeText: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/members', true);
    if (!g) return;
    const m = await this.target(g, res, id);
    if (!m || !this.allowed(g, res, 'members.manage', mayAssign(g.member.role, m.role, m.role))) return;
    await this.repo.unlock(g.scope.organizationId, m.id);
    await this.audit(g, req, 'member.unlock', m.id, null);
    await this.renderMembers(g, res, 200, { kind: 'info', text: g.ctx.s.done }, null);
  }

  @Get(':mode/audit')
  async auditLog(@Param('mode') modeText: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.signed(req, res, modeText, '/audit', false);
    if (!g || !this.allowed(g, res, 'audit_log.read')) return;
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
