import { Inject, Injectable, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { READS_BODY } from '../../shared/http/object-body';
import type { Mode, Scope } from '../../shared/auth/request-context';
import { DomainError } from '../../shared/errors/domain-error';
import type { OrgId } from '../../shared/ids/ids';
import { GetOrganizationProfileQuery } from '../organizations';
import { ConsoleAssets } from './console-assets';
import { ConsoleAuth, ConsoleSession } from './console-auth.service';
import { AppConfig } from '../../shared/config/app-config';
import { BareContext, messagePage, PageContext } from './domain/pages';
import { Action, may } from './domain/roles';
import { chooseConsoleLanguage, ConsoleLanguage, stringsOf } from './domain/strings';
import type { MemberRow } from './persistence/console.repository';
import { ConsoleRepository } from './persistence/console.repository';

/** Sent (value 1) by a page's element that refreshes it on a timer: that request is not the member's activity. */
export const POLL_HEADER = 'x-console-poll';

/** A form's fields (urlencoded body). */
export type Form = Record<string, unknown>;

/** A form post: the handler reads req.body itself (so the bodiless-route check leaves its fields alone). */
export const ConsoleFormPost =
  (path: string): MethodDecorator =>
  (target, key, descriptor) => {
    Reflect.defineMetadata(READS_BODY, true, target.constructor, key as string);
    return Post(path)(target, key, descriptor);
  };

export function formText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export const SESSION_COOKIE = 'console_session';
const LANG_COOKIE = 'console_lang';

/**
 * The request's cookies. A value that is not valid percent-encoding (another application's cookie on the
 * same host with a stray `%`) is kept as it was sent: it must never make every console page fail.
 */
export function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const raw = part.slice(i + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Kept as sent.
    }
    out[part.slice(0, i).trim()] = value;
  }
  return out;
}

/** Whether a presented token equals the expected one (compared in constant time). */
export function same(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A signed-in request: the member, the session, the page context and the scope (organization and mode). */
export interface SignedMember {
  session: ConsoleSession;
  member: MemberRow;
  ctx: PageContext;
  scope: Scope;
}

/**
 * The console pages' door, shared by every console controller: the session cookie, the language, the
 * mode in the path, the CSRF token of a post, the role table (`may`) and the audit log. Each method
 * answers the request itself when it refuses (sign-in redirect, 404, 403) and returns null or false.
 */
@Injectable()
export class ConsoleGate {
  constructor(
    @Inject(ConsoleAuth) private readonly auth: ConsoleAuth,
    @Inject(ConsoleRepository) private readonly repo: ConsoleRepository,
    @Inject(ConsoleAssets) private readonly assets: ConsoleAssets,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /** Strict CSP (scripts and styles from the service only), no caching, no framing: as every console page. */
  headers(res: Response): void {
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

  /** A console cookie (path /console, HttpOnly, Secure in production); `maxAgeSeconds` null: for the browser session, 0: removed. */
  cookie(res: Response, name: string, value: string, maxAgeSeconds: number | null, sameSite = 'Lax'): void {
    const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/console', 'HttpOnly', `SameSite=${sameSite}`];
    if (this.config.isProduction) parts.push('Secure');
    if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
    const prev = res.getHeader('Set-Cookie');
    res.setHeader('Set-Cookie', [...(Array.isArray(prev) ? prev : prev ? [String(prev)] : []), parts.join('; ')]);
  }

  /** The page's language: `?lang=` (remembered in a cookie for a year), else the remembered one, else the browser's. */
  language(req: Request, res: Response): ConsoleLanguage {
    const q = req.query.lang;
    if (q === 'en' || q === 'de') {
      this.cookie(res, LANG_COOKIE, q, 365 * 24 * 3600);
      return q;
    }
    return chooseConsoleLanguage(cookies(req)[LANG_COOKIE], req.headers['accept-language']);
  }

  /** The context of a page without a session (sign-in, one-time links, refusals). */
  bare(req: Request, res: Response): BareContext {
    const lang = this.language(req, res);
    return { lang, s: stringsOf(lang), assetVersion: this.assets.version };
  }

  /** The signed-in member for a page in `modeText`, or null after answering. `post`: a state change (checks the CSRF token). */
  async signed(req: Request, res: Response, modeText: string, path: string, post: boolean): Promise<SignedMember | null> {
    this.headers(res);
    const bare = this.bare(req, res);
    const { lang, s } = bare;
    // A page's own refresh (POLL_HEADER, set by its polling element) does not keep the session alive.
    const session = await this.auth.session(cookies(req)[SESSION_COOKIE], post || req.headers[POLL_HEADER] !== '1');
    if (!session) {
      if (post || req.headers['hx-request']) {
        res.setHeader('HX-Redirect', '/console/sign-in');
        res.status(401).send(messagePage(bare, s.sign_in, s.session_expired));
      } else {
        res.redirect(303, '/console/sign-in');
      }
      return null;
    }
    const mode: Mode | null = modeText === 'test' || modeText === 'live' ? modeText : null;
    if (!mode) {
      res.status(404).send(messagePage(bare, s.not_found, s.not_found));
      return null;
    }
    const org = await this.queries.execute(new GetOrganizationProfileQuery(session.member.organization_id));
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
      const token = formText(body._csrf) || formText(req.headers['x-csrf-token']);
      if (!same(token, session.session.csrf_token)) {
        res.status(403).send(messagePage(ctx, s.forbidden, s.csrf_refused));
        return null;
      }
    }
    return { session, member: session.member, ctx, scope: { organizationId: session.member.organization_id as OrgId, mode } };
  }

  /**
   * The role table, enforced on the server: false after answering 403. `ok` replaces the table's answer
   * where the action depends on its object as well (a key's access, the role a member is given).
   */
  allowed(g: SignedMember, res: Response, action: Action, ok = may(g.member.role, action, g.scope.mode)): boolean {
    if (ok) return true;
    res.status(403).send(messagePage(g.ctx, g.ctx.s.forbidden, g.ctx.s.forbidden));
    return false;
  }

  notFound(g: SignedMember, res: Response): void {
    res.status(404).send(messagePage(g.ctx, g.ctx.s.not_found, g.ctx.s.not_found));
  }

  /** Runs a read; another scope's id (NotFoundError) answers the 404 page and gives null. */
  async found<T>(g: SignedMember, res: Response, read: () => Promise<T>): Promise<T | null> {
    try {
      return await read();
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'not_found') {
        this.notFound(g, res);
        return null;
      }
      throw e;
    }
  }

  /**
   * Records a console action in the audit log: the member, what, which object, from which address, in the
   * page's mode (null: an action on the organization rather than on one mode, such as a member's role).
   */
  audit(g: SignedMember, req: Request, action: string, target: string | null, mode: Mode | null = g.scope.mode): Promise<void> {
    return this.repo.audit(
      { organization_id: g.scope.organizationId, mode, actor_type: 'member', actor_id: g.member.id, action, target, ip: req.ip ?? null },
      new Date(),
    );
  }
}
