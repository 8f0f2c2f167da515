import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { createHash, randomBytes } from 'node:crypto';
import { AppConfig } from '../../shared/config/app-config';
import { ConflictError, ForbiddenError, NotFoundError, ValidationFailedError } from '../../shared/errors/domain-error';
import { Clock } from '../../shared/time/clock';
import { GetOrganizationProfileQuery } from '../organizations';
import { isRole, mayAssign, Role } from './domain/roles';
import { ConsoleRepository, MemberRow, SessionRow } from './persistence/console.repository';

/** Session limits and sign-in protection (decisions §25). */
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_MS = 15 * 60_000;
/** How long failed sign-ins of an email no member signs in with are remembered after the last one. */
const FORGET_MISSES_MS = 30 * 24 * 3_600_000;
export const INVITE_LINK_MS = 24 * 3600_000;
export const RESET_LINK_MS = 2 * 3600_000;
export const MIN_PASSWORD_LENGTH = 12;

/**
 * argon2 (a native module) is loaded at the first password set or sign-in, not at start: most processes
 * serve only the API.
 */
let argon2: Promise<typeof import('@node-rs/argon2')> | null = null;
const argon = () => (argon2 ??= import('@node-rs/argon2'));
const hash = async (password: string) => (await argon()).hash(password);
const verify = async (hashed: string, password: string) => (await argon()).verify(hashed, password);

/**
 * A hash computed once (at the first sign-in with an unknown email), verified against when the email is
 * unknown, so an unknown email costs the same time.
 */
let dummyHash: Promise<string> | null = null;
const DUMMY_HASH = () => (dummyHash ??= hash('not a password of anyone'));

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,60}$/;

/** The longest email a member may have (the members table's limit, as RFC 5321 allows for a path). */
const MAX_EMAIL_LENGTH = 254;

export function normalizeEmail(value: unknown): string {
  if (typeof value !== 'string' || !EMAIL.test(value.trim())) throw new ValidationFailedError({ email: 'must be an email address' });
  const email = value.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH) throw new ValidationFailedError({ email: `must be at most ${MAX_EMAIL_LENGTH} characters` });
  return email;
}

/** Renewing the invitation of a member whose role the inviter may not change (an admin, an owner's invitation). */
export class RenewalForbiddenError extends ForbiddenError {
  constructor() {
    super("Your role does not allow renewing this member's invitation", 'member_role_forbidden');
  }
}

export interface IssuedLink {
  member_id: string;
  organization_id: string;
  email: string;
  role: Role;
  kind: 'invite' | 'reset';
  url: string;
  expires_at: string;
}

export type SignInResult = { ok: true; token: string; member: MemberRow } | { ok: false; reason: 'invalid' | 'locked' };

export interface ConsoleSession {
  member: MemberRow;
  session: SessionRow;
  tokenHash: string;
}

/**
 * Members, sessions and one-time links of the console. Passwords are argon2id hashes; session and
 * link tokens are random and kept only as SHA-256 hashes, so a copy of the tables opens nothing.
 */
@Injectable()
export class ConsoleAuth {
  constructor(
    @Inject(ConsoleRepository) private readonly repo: ConsoleRepository,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  get baseUrl(): string {
    return this.config.publicBaseUrl ?? `http://localhost:${this.config.PORT}`;
  }

  /**
   * An invitation (a new member, or one who has not set a password yet) or a password reset (an
   * existing member): a one-time link to set a password. `actor` is the role of the member who asks
   * (null: the operator's command line). Renewing an invitation gives the member the role asked for,
   * so it is allowed only to an actor who may change the member's role as it stands: an admin never
   * renews an owner's invitation (and so never gets a link that signs in as an owner).
   */
  async issueLink(
    organizationId: string,
    emailInput: unknown,
    kind: 'invite' | 'reset',
    roleInput?: unknown,
    name = '',
    actor: Role | null = null,
  ): Promise<IssuedLink> {
    const email = normalizeEmail(emailInput);
    const org = await this.queries.execute(new GetOrganizationProfileQuery(organizationId));
    if (!org) throw new NotFoundError('organization');
    let member = await this.repo.memberByEmail(organizationId, email);
    const token = newToken();
    const expiresAt = new Date(this.clock.now().getTime() + (kind === 'invite' ? INVITE_LINK_MS : RESET_LINK_MS));
    if (kind === 'invite') {
      if (!isRole(roleInput)) throw new ValidationFailedError({ role: 'must be one of owner, admin, developer, analyst, support' });
      if (member?.password_hash) throw new ConflictError('This email is already a member of the organization', 'member_exists');
      if (member) {
        if (actor && !mayAssign(actor, member.role, roleInput)) throw new RenewalForbiddenError();
        // Checked again under the members' lock, with the link stored in the same transaction.
        const renewed = await this.repo.renewInvitation(organizationId, member.id, roleInput, actor, { tokenHash: tokenHash(token), expiresAt });
        if (!renewed) {
          // Why not, as the member stands now: made an owner, accepted the invitation, or removed meanwhile.
          const now = await this.repo.memberByEmail(organizationId, email);
          if (now && !now.password_hash) throw new RenewalForbiddenError();
          if (now) throw new ConflictError('This email is already a member of the organization', 'member_exists');
          throw new ConflictError('The invitation was withdrawn meanwhile; invite the email again', 'invitation_withdrawn');
        }
        member = renewed;
      } else {
        // The member and their invitation's link together, of a role the actor may give.
        const inserted = await this.repo.insertInvitedMember(organizationId, email, name.slice(0, 200), roleInput, { tokenHash: tokenHash(token), expiresAt });
        // The same email invited at the same moment by someone else: theirs is the invitation.
        if (!inserted) throw new ConflictError('This email is already a member of the organization', 'member_exists');
        member = inserted;
      }
    } else if (!member) {
      throw new NotFoundError('member');
    } else if (!(await this.repo.insertLink(organizationId, tokenHash(token), member.id, kind, expiresAt, actor))) {
      // Made an owner (or removed) since the actor's page read them: not the actor's to reset any more.
      const now = await this.repo.memberByEmail(organizationId, email);
      if (!now) throw new NotFoundError('member');
      throw new ForbiddenError('Your role does not allow a link for this member (made an owner meanwhile)', 'member_role_forbidden');
    }
    return {
      member_id: member.id,
      organization_id: organizationId,
      email,
      role: member.role,
      kind,
      url: `${this.baseUrl}/console/link/${token}`,
      expires_at: expiresAt.toISOString(),
    };
  }

  async linkMember(token: string): Promise<{ member: MemberRow; kind: 'invite' | 'reset' } | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    return this.repo.liveLink(tokenHash(token), this.clock.now());
  }

  /** Sets the password through a link (used once); every other session of the member ends. */
  async setPasswordByLink(token: string, password: string): Promise<MemberRow | null> {
    const link = await this.linkMember(token);
    if (!link) return null;
    checkPassword(password);
    const passwordHash = await hash(password);
    if (!(await this.repo.setPasswordByLink(tokenHash(token), this.clock.now(), passwordHash))) return null;
    return link.member;
  }

  /**
   * Email and password. Each check takes one of the member's attempts first (takeSignInAttempt), so
   * attempts sent at once are counted before any is checked: MAX_FAILED_SIGN_INS failures lock the
   * member out for LOCKOUT_MS (then it ends by itself), and a locked member's password is not checked.
   * Every answer costs one argon2 verification at least (an unknown email, an empty password, a
   * locked member), so timing tells nothing. The session opens only while the password checked is
   * still the member's (a password set through a link meanwhile wins).
   */
  async signIn(emailInput: unknown, password: unknown, ip: string | null): Promise<SignInResult> {
    const now = this.clock.now();
    let email: string;
    try {
      email = normalizeEmail(emailInput);
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    const pass = typeof password === 'string' ? password : '';
    const candidates = (await this.repo.membersByEmail(email)).filter((m) => m.password_hash);
    const taken: string[] = [];
    for (const member of candidates) {
      if (!(await this.repo.takeSignInAttempt(member.id, now, MAX_FAILED_SIGN_INS, new Date(now.getTime() + LOCKOUT_MS)))) continue;
      taken.push(member.id);
      // Checked even when empty (no password matches one), so an empty password costs what another does.
      const matches = await verify(member.password_hash!, pass || 'x').catch(() => false);
      if (!pass || !matches) continue;
      const token = newToken();
      if (!(await this.repo.insertSession(tokenHash(token), member.id, newToken(), now, ip, member.password_hash!))) continue;
      await this.repo.recordSignIn(member.id, now);
      // The same email's memberships of other organizations tried first were not guessed at: their attempts go back.
      // Safe because the most recently set password is tried first (membersByEmail): a membership whose password
      // someone else set (an admin who invited this email to their organization, and can reset it at will) is
      // tried before any older one and answers a guess itself; only a password set before another membership's
      // last change can stand behind that membership, and it is one fixed value, not a stream of guesses.
      for (const other of taken) if (other !== member.id) await this.repo.giveBackSignInAttempt(other, MAX_FAILED_SIGN_INS);
      return { ok: true, token, member };
    }
    if (!taken.length) await verify(await DUMMY_HASH(), pass || 'x').catch(() => false);
    if (candidates.length === 0) {
      // Counted and locked as a member's would be, so neither the status nor the words tell whether the email is a member's.
      const hashed = createHash('sha256').update(email).digest('hex');
      const locked = await this.repo.countSignInMiss(
        hashed,
        now,
        MAX_FAILED_SIGN_INS,
        new Date(now.getTime() + LOCKOUT_MS),
        new Date(now.getTime() - FORGET_MISSES_MS),
      );
      return { ok: false, reason: locked ? 'locked' : 'invalid' };
    }
    const fresh = await this.repo.membersByEmail(email);
    const locked = fresh.some((m) => m.password_hash && m.locked_until && m.locked_until > now);
    return { ok: false, reason: locked ? 'locked' : 'invalid' };
  }

  /**
   * The session of a cookie's token while within its idle and absolute limits, moving the idle limit on unless
   * `activity` is false (a page refreshing itself in an open tab is no sign of someone at the keyboard).
   */
  async session(token: string | undefined, activity = true): Promise<ConsoleSession | null> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const hashed = tokenHash(token);
    const session = await this.repo.session(hashed);
    if (!session) return null;
    const now = this.clock.now().getTime();
    if (now - session.last_seen_at.getTime() > SESSION_IDLE_MS || now - session.created_at.getTime() > SESSION_ABSOLUTE_MS) {
      await this.repo.deleteSession(hashed);
      return null;
    }
    const members: MemberRow[] = (await this.repo.membersByIdAnyOrg(session.member_id)) ?? [];
    const member = members[0];
    if (!member) return null;
    // Written at most once a minute, so reading pages does not write on every request.
    if (activity && now - session.last_seen_at.getTime() > 60_000) await this.repo.touchSession(hashed, new Date(now));
    return { member, session, tokenHash: hashed };
  }

  signOut(tokenHashValue: string): Promise<void> {
    return this.repo.deleteSession(tokenHashValue);
  }

  signOutEverywhere(memberId: string): Promise<void> {
    return this.repo.deleteSessionsOf(memberId);
  }
}

export function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    throw new ValidationFailedError({ password: `must be ${MIN_PASSWORD_LENGTH} to 200 characters` });
  }
}
