// The answers scoring keeps of its pure functions: computed once per key, shared frozen, forgotten
// when the bound is reached (then computed again), and kept per object for names.
import { describe, expect, it } from 'vitest';
import { parseWebAddress } from '../../src/resolve/domains.ts';
import { memoized, memoizedByObject } from '../../src/resolve/memo.ts';

describe('memoized', () => {
  it('computes each key once, a null answer included', () => {
    const asked: string[] = [];
    const parse = memoized((key: string) => {
      asked.push(key);
      return key === 'none' ? null : { key };
    });
    expect(parse('a')).toEqual({ key: 'a' });
    expect(parse('a')).toBe(parse('a'));
    expect(parse('none')).toBeNull();
    expect(parse('none')).toBeNull();
    expect(asked).toEqual(['a', 'none']);
  });

  it('shares an answer no caller can change', () => {
    const page = parseWebAddress('https://www.AustinTexas.gov/parks/');
    expect(page).toEqual({ host: 'austintexas.gov', path: '/parks' });
    expect(() => {
      (page as { host: string }).host = 'elsewhere.gov';
    }).toThrow(TypeError);
    expect(parseWebAddress('https://www.AustinTexas.gov/parks/')?.host).toBe('austintexas.gov');
  });

  it('starts over when full, and answers the same again', () => {
    let computed = 0;
    const double = memoized((key: string) => {
      computed++;
      return key + key;
    }, 2);
    expect([double('a'), double('b'), double('a')]).toEqual(['aa', 'bb', 'aa']);
    expect(computed).toBe(2);
    expect(double('c')).toBe('cc');
    expect(double('a')).toBe('aa');
    expect(computed).toBe(4);
  });
});

describe('memoizedByObject', () => {
  it('keeps an answer per object, not per equal object', () => {
    let computed = 0;
    const size = memoizedByObject((o: { words: string[] }) => {
      computed++;
      return o.words.length;
    });
    const name = { words: ['travis', 'county'] };
    expect(size(name)).toBe(2);
    expect(size(name)).toBe(2);
    expect(size({ words: ['travis', 'county'] })).toBe(2);
    expect(computed).toBe(2);
  });
});
