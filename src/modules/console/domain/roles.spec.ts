import { ACTIONS, may, mayAssign, Role, ROLES, type Action } from './roles';

/** The role table of decisions §25, written out cell by cell: [action, owner, admin, developer, analyst, support]. */
type Cell = 'yes' | 'no' | 'test';
const ROWS: Array<[Action, Cell, Cell, Cell, Cell, Cell]> = [
  ['read', 'yes', 'yes', 'yes', 'yes', 'yes'],
  ['invoices.write', 'yes', 'yes', 'test', 'no', 'yes'],
  ['invoices.mark_paid', 'yes', 'yes', 'test', 'no', 'no'],
  ['catalog.write', 'yes', 'yes', 'test', 'no', 'no'],
  ['subscriptions.cancel', 'yes', 'yes', 'test', 'no', 'yes'],
  ['api_keys.manage', 'yes', 'yes', 'test', 'no', 'no'],
  ['api_keys.read_only', 'yes', 'yes', 'yes', 'no', 'no'],
  ['webhooks.manage', 'yes', 'yes', 'test', 'no', 'no'],
  ['members.manage', 'yes', 'yes', 'no', 'no', 'no'],
  ['audit_log.read', 'yes', 'yes', 'no', 'no', 'no'],
  ['exports', 'yes', 'yes', 'yes', 'yes', 'yes'],
];

describe('may(role, action, mode)', () => {
  it('has a row for every action', () => {
    expect(ROWS.map((r) => r[0]).sort()).toEqual([...ACTIONS].sort());
  });

  for (const [action, ...cells] of ROWS) {
    ROLES.forEach((role, i) => {
      const cell = cells[i];
      it(`${role} / ${action}: ${cell}`, () => {
        expect(may(role, action, 'test')).toBe(cell !== 'no');
        expect(may(role, action, 'live')).toBe(cell === 'yes');
      });
    });
  }
});

describe('mayAssign (members and roles: owner anything, admin up to admin)', () => {
  it('lets an owner make, change and remove owners', () => {
    expect(mayAssign('owner', null, 'owner')).toBe(true);
    expect(mayAssign('owner', 'owner', 'admin')).toBe(true);
    expect(mayAssign('owner', 'owner', null)).toBe(true);
  });

  it('lets an admin work up to admin, never on an owner', () => {
    expect(mayAssign('admin', null, 'admin')).toBe(true);
    expect(mayAssign('admin', 'developer', 'analyst')).toBe(true);
    expect(mayAssign('admin', 'support', null)).toBe(true);
    expect(mayAssign('admin', null, 'owner')).toBe(false);
    expect(mayAssign('admin', 'owner', 'admin')).toBe(false);
    expect(mayAssign('admin', 'owner', null)).toBe(false);
  });

  it.each<Role>(['developer', 'analyst', 'support'])('refuses %s any change', (role) => {
    expect(mayAssign(role, null, 'support')).toBe(false);
    expect(mayAssign(role, 'support', null)).toBe(false);
  });
});
