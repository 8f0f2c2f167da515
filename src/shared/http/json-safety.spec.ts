import { findReservedKeys, findUnstorable, jsonDepthExceeds } from './json-safety';

describe('findUnstorable', () => {
  const NUL = /NUL character/;
  const SURROGATE = /lone surrogate/;
  it.each([
    [{ name: 'ok', items: [{ price: '1' }] }, '', null, null],
    [{ items: [{ name: 'a\u0000b' }] }, '', 'items.0.name', NUL],
    [{ metadata: { 'k\u0000': 'v' } }, '', 'metadata.k\u0000', NUL],
    ['x\u0000', 'id', 'id', NUL],
    ['x\u0000', '', 'body', NUL],
    [['fine', 'no\u0000'], 'status', 'status.1', NUL],
    // A pair is one character (an emoji); either half alone is no text PostgreSQL can store in jsonb.
    [{ metadata: { k: 'smile \ud83d\ude00' } }, '', null, null],
    [{ metadata: { k: 'a\ud800' } }, '', 'metadata.k', SURROGATE],
    [{ metadata: { k: '\udc00b' } }, '', 'metadata.k', SURROGATE],
    [{ metadata: { '\ud83d': 'v' } }, '', 'metadata.\ud83d', SURROGATE],
    [{ metadata: { k: '\ude00\ud83d' } }, '', 'metadata.k', SURROGATE],
  ])('%j at %j -> %j', (value, at, path, message) => {
    const found = findUnstorable(value, at);
    expect(found?.path ?? null).toBe(path);
    if (message) expect(found!.message).toMatch(message);
  });
});

describe('jsonDepthExceeds', () => {
  it.each([
    ['{"a":[1,2,{"b":3}]}', 3, false],
    ['{"a":[1,2,{"b":3}]}', 2, true],
    ['[[[[]]]]', 4, false],
    ['[[[[[]]]]]', 4, true],
    ['{"s":"[[[[[[[[[[[["}', 1, false],
    ['{"s":"\\"[[[[["}', 1, false],
    ['[]'.repeat(1000), 1, false],
  ])('%s with limit %d -> %s', (text, limit, expected) => {
    expect(jsonDepthExceeds(text, limit)).toBe(expected);
  });
});

describe('findReservedKeys', () => {
  it.each([
    ['{"name":"ok","items":[{"price":"1"}],"metadata":{"constructors":"x"}}', []],
    ['{"__proto__":{"a":1},"items":[{"constructor":1}],"metadata":{"prototype":"p"}}', ['__proto__', 'items.0.constructor', 'metadata.prototype']],
    ['[{"a":{"b":{"__proto__":null}}}]', ['0.a.b.__proto__']],
    ['["__proto__","constructor"]', []],
  ])('%s -> %j', (text, expected) => {
    expect(findReservedKeys(JSON.parse(text))).toEqual(expected);
  });

  it('reports at most 20 paths', () => {
    const body = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, JSON.parse('{"__proto__":1}')]));
    expect(findReservedKeys(body)).toHaveLength(20);
  });
});
