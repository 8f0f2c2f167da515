import { hasIdShape, IdKind, newId, newVersionGroupId } from './ids';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ids', () => {
  it.each<IdKind>(['org', 'key', 'invoice', 'invoice_item', 'payment', 'product', 'file'])('makes %s ids as kind prefix + UUIDv7', (kind) => {
    const id = newId(kind);
    expect(id.startsWith(`${kind}_`)).toBe(true);
    expect(id.slice(kind.length + 1)).toMatch(UUID_V7);
    expect(hasIdShape(kind, id)).toBe(true);
  });

  it('makes ids that sort by creation time and never repeat', () => {
    const ids = Array.from({ length: 500 }, () => newId('invoice'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('makes version group ids of the same shape', () => {
    expect(hasIdShape('product', newVersionGroupId('product'))).toBe(true);
  });

  it.each([
    ['org', 'invoice_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'another kind'],
    ['org', 'org_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5', 'a short uuid'],
    ['org', 'org_0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B', 'upper-case hex'],
    ['org', 'org_not-a-uuid', 'no uuid'],
    ['org', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'no prefix'],
    ['invoice', 'invoice_item_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'a longer kind sharing the prefix'],
  ] as [IdKind, string, string][])('rejects %s id %s (%s)', (kind, text) => {
    expect(hasIdShape(kind, text)).toBe(false);
  });
});
