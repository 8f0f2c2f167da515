import { onFirstUse } from './first-use';

describe('onFirstUse', () => {
  it('makes nothing until the first call, then makes the value once and keeps it', () => {
    let made = 0;
    const value = onFirstUse(() => ({ n: ++made }));
    expect(made).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(made).toBe(1);
  });

  it('keeps a value that is falsy', () => {
    let made = 0;
    const value = onFirstUse(() => (made++, 0));
    expect([value(), value()]).toEqual([0, 0]);
    expect(made).toBe(1);
  });
});
