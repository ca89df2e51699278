// The depth bound read off raw JSON text before it is parsed: brackets inside strings (escaped quotes
// included) do not count, the bound itself is allowed, one more level is refused. And the clip of a
// title for a person: at a word, with an ellipsis.
import { describe, expect, it } from 'vitest';
import { clipText, jsonDepthProblem } from '../../src/shared/text.ts';

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

describe('clipText', () => {
  it('cuts a long title at a space, never mid-word, and shows the cut', () => {
    const title = 'RFP: Fleet electrification and EV charging infrastructure for the county motor pool';
    const clipped = clipText(title, 40);
    expect(clipped).toBe('RFP: Fleet electrification and EV…');
    expect(clipped.length).toBeLessThanOrEqual(40);
    expect(clipText(title, 200)).toBe(title);
    // One long word: cut where it must, still within the bound.
    expect(clipText('x'.repeat(300), 255)).toHaveLength(255);
  });
});
