import type { Scope } from '../auth/request-context';
import { newId, OrgId } from './ids';
import { OtherModeIds } from './other-mode-ids';

const org = newId('org') as OrgId;
const invoice = newId('invoice');

describe('OtherModeIds', () => {
  function registry(rows: { organizationId: string; mode: string; id: string }[]) {
    const asked: Scope[] = [];
    const ids = new OtherModeIds();
    ids.register('invoice', 'invoice_not_found', (scope, id) => {
      asked.push(scope);
      return Promise.resolve(rows.some((r) => r.organizationId === scope.organizationId && r.mode === scope.mode && r.id === id));
    });
    return { ids, asked };
  }

  it('answers the other mode when the caller’s organization has the id there, asking only in that scope', async () => {
    const { ids, asked } = registry([{ organizationId: org, mode: 'live', id: invoice }]);
    await expect(ids.otherModeOf('invoice_not_found', { organizationId: org, mode: 'test' }, [invoice])).resolves.toBe('live');
    expect(asked).toEqual([{ organizationId: org, mode: 'live' }]);
  });

  it('answers null for another organization’s id, an unknown id, another code or an id of another kind, asking nothing for the last two', async () => {
    const { ids, asked } = registry([{ organizationId: 'org_other', mode: 'live', id: invoice }]);
    await expect(ids.otherModeOf('invoice_not_found', { organizationId: org, mode: 'test' }, [invoice])).resolves.toBeNull();
    await expect(ids.otherModeOf('invoice_not_found', { organizationId: org, mode: 'test' }, [newId('invoice')])).resolves.toBeNull();
    expect(asked).toHaveLength(2);
    await expect(ids.otherModeOf('payment_not_found', { organizationId: org, mode: 'test' }, [invoice])).resolves.toBeNull();
    await expect(ids.otherModeOf('invoice_not_found', { organizationId: org, mode: 'test' }, [newId('payment'), 'invoice_not-a-uuid'])).resolves.toBeNull();
    expect(asked).toHaveLength(2);
    expect(ids.explains('invoice_not_found')).toBe(true);
    expect(ids.explains('no_upcoming_invoice')).toBe(false);
  });
});
