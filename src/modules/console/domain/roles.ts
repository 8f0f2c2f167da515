import type { Mode } from '../../../shared/auth/request-context';

/** The roles of an organization's members (decisions §25). */
export const ROLES = ['owner', 'admin', 'developer', 'analyst', 'support'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * What a member may do, one name per row of the role table of decisions §25 (a row that splits by
 * role, such as "API keys", has one name per part).
 */
export const ACTIONS = [
  /** Read everything of the organization, in both modes. */
  'read',
  /** Invoices: create, void, change currency; refunds: create, cancel. */
  'invoices.write',
  /** Mark an invoice paid without a payment (MARKED_PAID). */
  'invoices.mark_paid',
  /** Products, subscriptions, wallets, providers. */
  'catalog.write',
  /** Cancel a subscription (the one catalog write support may make). */
  'subscriptions.cancel',
  /** Create and revoke any API key (full or read-only). */
  'api_keys.manage',
  /** Create and revoke read-only API keys. */
  'api_keys.read_only',
  /** Webhook endpoints, resend a delivery, the test clock. */
  'webhooks.manage',
  /** Invite members, change roles, remove members, issue password resets. */
  'members.manage',
  /** Read the audit log. */
  'audit_log.read',
  /** CSV exports. */
  'exports',
] as const;
export type Action = (typeof ACTIONS)[number];

/** A cell of the table: always, never, or only in test mode. */
type Cell = 'yes' | 'no' | 'test';

const TABLE: Record<Action, Record<Role, Cell>> = {
  read: { owner: 'yes', admin: 'yes', developer: 'yes', analyst: 'yes', support: 'yes' },
  'invoices.write': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'yes' },
  'invoices.mark_paid': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'no' },
  'catalog.write': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'no' },
  'subscriptions.cancel': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'yes' },
  'api_keys.manage': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'no' },
  // "test mode, and read-only live keys": a developer manages any key in test mode and read-only keys in
  // live mode (reading the keys is every role's right already, so the row grants more than a view).
  'api_keys.read_only': { owner: 'yes', admin: 'yes', developer: 'yes', analyst: 'no', support: 'no' },
  'webhooks.manage': { owner: 'yes', admin: 'yes', developer: 'test', analyst: 'no', support: 'no' },
  'members.manage': { owner: 'yes', admin: 'yes', developer: 'no', analyst: 'no', support: 'no' },
  'audit_log.read': { owner: 'yes', admin: 'yes', developer: 'no', analyst: 'no', support: 'no' },
  exports: { owner: 'yes', admin: 'yes', developer: 'yes', analyst: 'yes', support: 'yes' },
};

/** Whether a member of `role` may do `action` in `mode`: the role table of decisions §25, as one function. */
export function may(role: Role, action: Action, mode: Mode): boolean {
  const cell = TABLE[action][role];
  return cell === 'yes' || (cell === 'test' && mode === 'test');
}

/**
 * Whether `actor` may give `target` the role `to` (invite, change of role) or remove `target`
 * (`to` null): an owner may do anything; an admin works "up to admin" (never makes, changes or
 * removes an owner); nobody else manages members.
 */
export function mayAssign(actor: Role, target: Role | null, to: Role | null): boolean {
  if (!may(actor, 'members.manage', 'live')) return false;
  if (actor === 'owner') return true;
  return target !== 'owner' && to !== 'owner';
}
