// How alike two names' words are: token by token (exact, then short forms, then typos), and names
// whose place words carry them while their words of kind scale them between ½ and 1.

import { memoizedByObject } from './memo.ts';
import { isTypoOf, type NormalizedName, normalizeName, STOP_WORDS } from './normalize.ts';
import { round3 } from './round.ts';
import { INTERCHANGEABLE_TYPE_WORDS, JURISDICTION_TYPE_WORDS, WORD_SHORT_FORMS } from './vocabulary.ts';

const quote = (s: string): string => `"${s}"`;

/** Whether `a` is a short form of `b` or the other way round ("tech" for "technology"). */
export function shortFormOf(a: string, b: string): boolean {
  return (WORD_SHORT_FORMS[a]?.includes(b) ?? false) || (WORD_SHORT_FORMS[b]?.includes(a) ?? false);
}

export interface TokenComparison {
  /** Dice coefficient: 2·matched / (|a| + |b|). */
  similarity: number;
  exact: number;
  /** Pairs matched through a short form ("tech" ~ "technology"). */
  short: [string, string][];
  /** Pairs matched through a typo (only when typos are allowed). */
  fuzzy: [string, string][];
}

/** Dice similarity of two token lists: exact matches first, then short forms, then (if allowed) typos. */
export function compareTokens(
  a: readonly string[],
  b: readonly string[],
  options: { typos?: boolean } = {},
): TokenComparison {
  if (!a.length && !b.length) return { similarity: 1, exact: 0, short: [], fuzzy: [] };
  if (!a.length || !b.length) return { similarity: 0, exact: 0, short: [], fuzzy: [] };
  // Loops, not closures: scoring compares names of every candidate of every account this way.
  const free = new Array<boolean>(b.length).fill(true);
  let pending: string[] = [];
  let exact = 0;
  for (const t of a) {
    const at = firstFree(b, free, t, same);
    if (at >= 0) {
      free[at] = false;
      exact++;
    } else pending.push(t);
  }
  const short = pending.length ? pairUp(pending, b, free, shortFormOf) : { found: [], left: pending };
  pending = short.left;
  const fuzzy = options.typos && pending.length ? pairUp(pending, b, free, isTypoOf).found : [];
  const matched = exact + short.found.length + fuzzy.length;
  return { similarity: (2 * matched) / (a.length + b.length), exact, short: short.found, fuzzy };
}

const same = (t: string, u: string) => t === u;

function firstFree(
  b: readonly string[],
  free: boolean[],
  t: string,
  test: (t: string, u: string) => boolean,
) {
  for (let i = 0; i < b.length; i++) if (free[i] && test(t, b[i] as string)) return i;
  return -1;
}

/** The pending tokens matched to free tokens of `b` by `test`, in order, and those left. */
function pairUp(
  pending: readonly string[],
  b: readonly string[],
  free: boolean[],
  test: (t: string, u: string) => boolean,
): { found: [string, string][]; left: string[] } {
  const found: [string, string][] = [];
  const left: string[] = [];
  for (const t of pending) {
    const at = firstFree(b, free, t, test);
    if (at >= 0) {
      free[at] = false;
      found.push([t, b[at] as string]);
    } else left.push(t);
  }
  return { found, left };
}

interface NameComparison {
  similarity: number;
  core: TokenComparison;
  detail: string;
}

const meaningful = memoizedByObject((n: NormalizedName): readonly string[] =>
  n.tokens.filter((t) => !STOP_WORDS.has(t)),
);
// "U.S." says whose an agency is, not what it is: a name that leaves it out names the same agency.
export const kindWords = memoizedByObject((n: NormalizedName): readonly string[] => [
  ...new Set(
    n.typeTokens
      .filter((t) => !JURISDICTION_TYPE_WORDS.has(t))
      .map((t) => INTERCHANGEABLE_TYPE_WORDS[t] ?? t),
  ),
]);

/**
 * Core tokens carry the name; type tokens, when both names have them, scale it between ½ (different
 * kinds) and 1 (same words). A name without type words ("Austin") is compared on its core alone.
 */
export function compareNames(
  a: NormalizedName,
  b: NormalizedName,
  options: { typos?: boolean } = {},
): NameComparison {
  const onCore = a.core.length > 0 && b.core.length > 0;
  const core = onCore
    ? compareTokens(a.core, b.core, options)
    : compareTokens(meaningful(a), meaningful(b), options);
  const aKind = kindWords(a);
  const bKind = kindWords(b);
  const type = aKind.length && bKind.length ? compareTokens(aKind, bKind) : null;
  const similarity = type ? core.similarity * (0.5 + 0.5 * type.similarity) : core.similarity;

  const parts: string[] = [];
  const scope = onCore ? 'core tokens' : 'tokens';
  if (core.similarity === 1) parts.push(`${scope} equal`);
  else if (core.similarity === 0) parts.push(`no ${scope} in common`);
  else parts.push(`${scope} ${round3(core.similarity)} similar`);
  for (const [x, y] of core.short) parts.push(`"${x}" for "${y}"`);
  for (const [x, y] of core.fuzzy) parts.push(`"${x}" ~ "${y}" (typo)`);
  if (!type) parts.push('type words not compared');
  else if (type.similarity === 1) parts.push('type tokens equal');
  else parts.push(`type tokens ${type.similarity === 0 ? 'differ' : `${round3(type.similarity)} similar`}`);
  if (a.expansions.length) parts.push(a.expansions.join(', '));
  const sign = similarity === 1 ? '≈' : 'vs';
  return {
    similarity,
    core,
    detail: `${quote(a.folded)} ${sign} ${quote(b.folded)} (${parts.join('; ')})`,
  };
}

export const sameWord = (t: string, u: string): boolean => t === u || shortFormOf(t, u) || isTypoOf(t, u);

/** Whether a name holds the word, as written, as a short form or through a typo. */
export function nameCarries(name: string, word: string): boolean {
  return normalizeName(name).tokens.some((u) => sameWord(word, u));
}
