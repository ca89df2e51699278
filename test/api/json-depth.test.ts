// The depth bound read off raw JSON text before it is parsed: brackets inside strings (escaped quotes
// included) do not count, the bound itself is allowed, one more level is refused.
import { describe, expect, it } from 'vitest';
import { jsonDepthProblem } from '../../src/shared/text.ts';

describe('jsonDepthProblem', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepthProblem('{"name":"[[[[[[[[[[","q":"\\"{{{{{{"}', 2)).toBeUndefined();
    expect(jsonDepthProblem(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeUndefined();
    expect(jsonDepthProblem(`${'['.repeat(33)}${']'.repeat(33)}`)).toBe(
      'the JSON nests deeper than 32 levels',
    );
    expect(jsonDepthProblem('{"a":{"b":[{"c":1}]}}', 3)).toBe('the JSON nests deeper than 3 levels');
    expect(jsonDepthProblem('{"a":{"b":[{"c":1}]}}', 4)).toBeUndefined();
  });
});
