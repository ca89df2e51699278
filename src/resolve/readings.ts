// Other ways to read a word of an account's name, each a rule a person applies without thinking:
// - initials and short forms of the buyer's words: "AISD" is Austin Independent School District,
//   "CapMetro" Capital Metropolitan, "UCLA" University of California, Los Angeles; a state's postal
//   code is the state ("GA Dept of Ed", "TxDOT");
// - the nicknames of state departments of transportation (Caltrans, PennDOT, WSDOT…), public knowledge
//   that no name rule derives: a short table and one pattern.
import { findState, STATES, type StateEntry } from '../buyer-intel/states.ts';
import { STOP_WORDS } from './vocabulary.ts';

// ---- Initials and short forms ----------------------------------------------------------------------------

/** US state names as token lists, longest first ("new york" before "new"), by their first word. */
const STATE_NAMES = new Map<string, { words: string[]; state: StateEntry }[]>();
for (const state of STATES.filter((s) => s.country === 'US')
  .map((s) => ({ words: s.name.toLowerCase().split(' '), state: s }))
  .sort((a, b) => b.words.length - a.words.length)) {
  const first = state.words[0] as string;
  STATE_NAMES.set(first, [...(STATE_NAMES.get(first) ?? []), state]);
}

export interface CompoundReading {
  /** First and last index (inclusive) of the buyer's tokens the word stands for. */
  start: number;
  end: number;
  /** The buyer's words it stands for, e.g. "austin independent school district". */
  words: string;
  /** How it was read: "initials" (A-I-S-D), "short forms" (Cap-Metro) or a state's postal "code" (GA). */
  how: 'initials' | 'short forms' | 'code';
}

type Part = 'initial' | 'short' | 'state' | 'skip';

interface Step {
  /** Characters of the word consumed. */
  take: number;
  /** Buyer tokens consumed. */
  span: number;
  part: Part;
}

function steps(word: string, at: number, tokens: readonly string[], i: number): Step[] {
  const token = tokens[i];
  if (token === undefined) return [];
  const out: Step[] = [];
  for (const { words, state } of STATE_NAMES.get(token) ?? []) {
    if (words.every((w, k) => tokens[i + k] === w) && word.startsWith(state.code.toLowerCase(), at)) {
      out.push({ take: 2, span: words.length, part: 'state' });
    }
  }
  // A word's initial, or a short form of three letters or more ("cap" for capital); two letters are
  // too many words' beginnings ("la" in Lakewood) unless they are a state's code.
  for (let n = Math.min(token.length, word.length - at); n >= 1; n--) {
    if ((n === 1 || n >= 3) && word.startsWith(token.slice(0, n), at))
      out.push({ take: n, span: 1, part: n === 1 ? 'initial' : 'short' });
  }
  // "U.S." gives both its initials (USACE, USFWS, USDA), folded to one word as it is.
  if (token === 'us' && word.startsWith('us', at)) out.push({ take: 2, span: 1, part: 'initial' });
  // A stop word may give its initial ("D-O-T") or be passed over ("UT" for University of Texas).
  if (STOP_WORDS.has(token)) out.push({ take: 0, span: 1, part: 'skip' });
  return out;
}

/**
 * Reads `word` as consecutive words of `tokens` (a buyer's folded tokens): all by their initials
 * (A-I-S-D), or all by short forms of three letters or more (Cap-Metro), a state's name by its postal
 * code either way (TX-D-O-T, GA). Initials and short forms do not mix: "la" + "usd" could be anything.
 * A reading needs two parts or more, unless the one part is a state code; it starts and ends on a
 * word that is no stop word.
 */
export function readCompound(word: string, tokens: readonly string[]): CompoundReading | null {
  if (word.length < 2 || word.length > 16 || /\d/.test(word)) return null;
  let best: CompoundReading | null = null;
  // What the parts so far were, counted: a reading is tried for every path through the buyer's words,
  // and counts cost nothing to pass on. Initials and short forms never mix, so a path that mixes them
  // goes no further.
  const search = (at: number, i: number, initials: number, shorts: number, states: number, start: number) => {
    if (initials && shorts) return;
    if (at === word.length) {
      const counted = initials + shorts + states;
      if (!(counted >= 2 || (counted === 1 && states)) || STOP_WORDS.has(tokens[i - 1] ?? '')) return;
      if (best && i - 1 - start <= best.end - best.start) return;
      best = {
        start,
        end: i - 1,
        words: tokens.slice(start, i).join(' '),
        how: counted === 1 ? 'code' : initials ? 'initials' : 'short forms',
      };
      return;
    }
    for (const { take, span, part } of steps(word, at, tokens, i))
      search(
        at + take,
        i + span,
        initials + (part === 'initial' ? 1 : 0),
        shorts + (part === 'short' ? 1 : 0),
        states + (part === 'state' ? 1 : 0),
        start,
      );
  };
  for (let start = 0; start < tokens.length; start++) {
    const first = tokens[start];
    if (!first || STOP_WORDS.has(first)) continue;
    search(0, start, 0, 0, 0, start);
  }
  return best;
}

// ---- State DOT nicknames -------------------------------------------------------------------------------

// Nicknames no pattern gives. Each is the state's Department of Transportation.
const DOT_NICKNAMES: Readonly<Record<string, string>> = {
  caltrans: 'CA',
  penndot: 'PA',
  massdot: 'MA',
  mndot: 'MN',
  modot: 'MO',
  wisdot: 'WI',
  deldot: 'DE',
  mainedot: 'ME',
  ctdot: 'CT',
  ddot: 'DC',
};

export interface Nickname {
  /** The body's name: "California Department of Transportation". */
  name: string;
  stateCode: string;
  /** Why, for the reason: "Caltrans is the California Department of Transportation". */
  why: string;
}

/**
 * A state department of transportation by its nickname: the table above, or "<state>DOT" /
 * "<state>SDOT" (TxDOT, NCDOT, NYSDOT, WSDOT). A single letter (FDOT, GDOT, ODOT) stands for the
 * account's state when that state's name begins with it, or for the one state whose name does.
 */
export function stateDotNickname(word: string, accountState: string | null): Nickname | null {
  const w = word.toLowerCase();
  const mine = accountState ? findState(accountState) : undefined;
  const fromTable = DOT_NICKNAMES[w];
  let state: StateEntry | undefined = fromTable ? findState(fromTable) : undefined;
  if (!state) {
    const m = /^([a-z]{1,2}?)s?dot$/.exec(w);
    const prefix = m?.[1];
    if (!prefix) return null;
    if (prefix.length === 2) state = findState(prefix);
    else {
      const initial = STATES.filter((s) => s.country === 'US' && s.name.toLowerCase().startsWith(prefix));
      state = mine && initial.includes(mine) ? mine : initial.length === 1 ? initial[0] : undefined;
    }
  }
  if (state?.country !== 'US') return null;
  if (mine && mine.code !== state.code) return null;
  const name = `${state.name} Department of Transportation`;
  return { name, stateCode: state.code, why: `${word} is the ${name}` };
}
