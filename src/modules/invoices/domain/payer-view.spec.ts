import { maskEmail, withImpliedParents } from './payer-view';

describe('maskEmail', () => {
  it.each([
    ['jane@example.com', 'j***@example.com'],
    ['J.Doe+tag@sub.example.org', 'J***@sub.example.org'],
    ['a@b.co', 'a***@b.co'],
    ['no-at-sign', '***'],
    ['@example.com', '***'],
  ])('%s -> %s', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });

  it('keeps null', () => {
    expect(maskEmail(null)).toBeNull();
  });
});

describe('withImpliedParents', () => {
  it('adds the parent of a nested expansion', () => {
    expect([...withImpliedParents(['items.product', 'payments.provider'])].sort()).toEqual(['items', 'items.product', 'payments', 'payments.provider']);
  });

  it('leaves top-level expansions alone', () => {
    expect([...withImpliedParents(['calculations'])]).toEqual(['calculations']);
  });
});
