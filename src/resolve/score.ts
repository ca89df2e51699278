// Size: one scorer whose rules interact; kept together so a change to one rule shows its neighbours.
// Pure scoring of one buyer (a search result) against one CRM account. Every point of the score comes
// with a signal saying where it came from, and the signals add up to the score: a "clamp" signal
// records what the 0..1 bounds took off.
import { findState } from '../buyer-intel/states.ts';
import {
  hintOfBuyerType,
  type NormalizedName,
  normalizeName,
  STOP_WORDS,
  TYPE_HINT_LABELS,
  type TypeHint,
  typeHintsRelated,
} from './normalize.ts';

export type SignalKind =
  | 'name'
  | 'common-name'
  | 'state'
  | 'website'
  | 'email-domain'
  | 'type'
  | 'clamp'
  /** An id the account carries names the buyer (by-id.ts): the whole score. */
  | 'id';

export interface ScoreSignal {
  signal: SignalKind;
  /** What this signal adds to the score (negative: takes away). */
  points: number;
  detail: string;
}

export interface Weights {
  /** Points for identical names; a partial name similarity earns its share. */
  name: number;
  /** Share of the name points an acronym reading earns ("UT Austin" as "University of Texas at Austin"). */
  commonNameCredit: number;
  /** Same state. */
  state: number;
  /** Different state: disqualifies (the score ends at 0 and the candidate is never matched). */
  stateMismatch: number;
  /** The account's website is the buyer's home page (same host, ignoring www.). */
  website: number;
  /** Same registrable domain but not the same page (a department of a city, a campus of a system). */
  websitePartial: number;
  /** Both have a web address and the registrable domains differ. */
  websiteMismatch: number;
  /** One of the account's email domains is the buyer's web host. */
  emailDomain: number;
  /** The kind of buyer the account's name says agrees with the buyer's type. */
  typeAgreement: number;
  /** The account's name says another kind of buyer ("City of Austin" against a county). */
  typeConflict: number;
  /**
   * A name with no type word ("Austin") most often means the city, then the county, then the school
   * district: the city gets this much, the county ⅔ and the school district ⅓. Small on purpose: it
   * orders candidates for review and never overcomes the ambiguity margin.
   */
  bareNamePrior: number;
}

export const DEFAULT_WEIGHTS: Readonly<Weights> = Object.freeze({
  name: 0.55,
  commonNameCredit: 0.9,
  state: 0.2,
  stateMismatch: -1,
  website: 0.25,
  websitePartial: 0.15,
  websiteMismatch: -0.05,
  emailDomain: 0.2,
  typeAgreement: 0.1,
  typeConflict: -0.25,
  bareNamePrior: 0.03,
});

export interface ScoringAccount {
  /** The name, or its normalisation when the caller already has it. */
  name: string | NormalizedName | null;
  /** As the CRM has it: 'TX', 'Texas', 'US-TX', or anything else (then not compared). */
  state?: string | null;
  website?: string | null;
  emailDomains?: readonly string[] | null;
}

export interface ScoringBuyer {
  name: string;
  stateCode?: string | null;
  type?: string | null;
  url?: string | null;
}

export type WebEvidence = 'home-page' | 'section' | 'domain' | 'email' | 'email-domain' | 'mismatch' | 'none';

export interface ScoreResult {
  /** 0..1, the sum of the signals' points. */
  score: number;
  signals: ScoreSignal[];
  /** A state mismatch: never to be matched, whatever the score. */
  disqualified: boolean;
  /** 0..1 similarity of the names (after an acronym reading, when one helped). */
  nameSimilarity: number;
  web: WebEvidence;
  /** Points from the website and email domains. */
  webPoints: number;
  /** Short phrases for a one-sentence explanation, e.g. "name equal after expanding ISD", "state TX". */
  reasons: string[];
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const quote = (s: string): string => `"${s}"`;

// ---- Token similarity ---------------------------------------------------------------------------------

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), capped at `max + 1`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const prev = rows[i - 1] ?? [];
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return Math.min(rows[a.length]?.[b.length] ?? max + 1, max + 1);
}

/** Whether two tokens are the same word with a typo: one edit from 4 letters, two from 8; never numbers. */
export function fuzzyTokenMatch(a: string, b: string): boolean {
  if (a === b) return true;
  if (/\d/.test(a) || /\d/.test(b)) return false;
  const shorter = Math.min(a.length, b.length);
  const allowed = shorter >= 8 ? 2 : shorter >= 4 ? 1 : 0;
  return allowed > 0 && a[0] === b[0] && editDistance(a, b, allowed) <= allowed;
}

export interface TokenComparison {
  /** Dice coefficient with fuzzy matches counted 0.8: 2·matched / (|a| + |b|). */
  similarity: number;
  exact: number;
  fuzzy: [string, string][];
}

const FUZZY_CREDIT = 0.8;

/** Dice similarity of two token lists: exact matches first, then one-typo matches. */
export function compareTokens(a: readonly string[], b: readonly string[]): TokenComparison {
  if (!a.length && !b.length) return { similarity: 1, exact: 0, fuzzy: [] };
  if (!a.length || !b.length) return { similarity: 0, exact: 0, fuzzy: [] };
  const free = b.map(() => true);
  const pending: string[] = [];
  let exact = 0;
  for (const t of a) {
    const at = b.findIndex((u, i) => free[i] && u === t);
    if (at >= 0) {
      free[at] = false;
      exact++;
    } else pending.push(t);
  }
  const fuzzy: [string, string][] = [];
  for (const t of pending) {
    const at = b.findIndex((u, i) => free[i] && fuzzyTokenMatch(t, u));
    const u = b[at];
    if (at >= 0 && u !== undefined) {
      free[at] = false;
      fuzzy.push([t, u]);
    }
  }
  const matched = exact + FUZZY_CREDIT * fuzzy.length;
  return { similarity: (2 * matched) / (a.length + b.length), exact, fuzzy };
}

interface NameComparison {
  similarity: number;
  core: TokenComparison;
  type: TokenComparison | null;
  detail: string;
}

/**
 * Core tokens carry the name; type tokens, when both names have them, scale it between ½ (different
 * kinds) and 1 (same words). A name without type words ("Austin") is compared on its core alone.
 */
export function compareNames(a: NormalizedName, b: NormalizedName): NameComparison {
  const meaningful = (n: NormalizedName) => n.tokens.filter((t) => !STOP_WORDS.has(t));
  const onCore = a.core.length > 0 && b.core.length > 0;
  const core = onCore ? compareTokens(a.core, b.core) : compareTokens(meaningful(a), meaningful(b));
  const type = a.typeTokens.length && b.typeTokens.length ? compareTokens(a.typeTokens, b.typeTokens) : null;
  const similarity = type ? core.similarity * (0.5 + 0.5 * type.similarity) : core.similarity;

  const parts: string[] = [];
  const scope = onCore ? 'core tokens' : 'tokens';
  if (core.similarity === 1) parts.push(`${scope} equal`);
  else if (core.similarity === 0) parts.push(`no ${scope} in common`);
  else parts.push(`${scope} ${round3(core.similarity)} similar`);
  for (const [x, y] of core.fuzzy) parts.push(`"${x}" ~ "${y}" (typo)`);
  if (!type) parts.push('type words not compared');
  else if (type.similarity === 1) parts.push('type tokens equal');
  else parts.push(`type tokens ${type.similarity === 0 ? 'differ' : `${round3(type.similarity)} similar`}`);
  if (a.expansions.length) parts.push(a.expansions.join(', '));
  const sign = similarity === 1 ? '≈' : 'vs';
  return {
    similarity,
    core,
    type,
    detail: `${quote(a.folded)} ${sign} ${quote(b.folded)} (${parts.join('; ')})`,
  };
}

/**
 * Reads an unmatched capitalised token of the account ("UT", "ACC") as the initials of consecutive
 * words of the buyer's name, and returns the account's name with that reading.
 */
function acronymReading(
  account: NormalizedName,
  buyer: NormalizedName,
): { name: NormalizedName; acronym: string; words: string } | null {
  for (const acronym of account.acronyms) {
    if (buyer.tokens.some((t) => fuzzyTokenMatch(acronym, t))) continue;
    const tokens = buyer.tokens;
    for (let start = 0; start < tokens.length; start++) {
      const first = tokens[start];
      if (!first || STOP_WORDS.has(first)) continue;
      let initials = '';
      for (let end = start; end < tokens.length && initials.length < acronym.length; end++) {
        const t = tokens[end] ?? '';
        if (STOP_WORDS.has(t)) continue;
        initials += t[0] ?? '';
        if (initials === acronym) {
          const words = tokens.slice(start, end + 1).join(' ');
          const text = account.searchName.replace(new RegExp(`\\b${acronym}\\b`, 'i'), words);
          return { name: { ...normalizeName(text), stateCode: account.stateCode }, acronym, words };
        }
      }
    }
  }
  return null;
}

// ---- Web addresses ------------------------------------------------------------------------------------

/** Host (lower case, without www.) and path (no trailing slash) of a URL or a bare domain. */
export function parseWebAddress(input: string | null | undefined): { host: string; path: string } | null {
  const raw = input?.trim();
  if (!raw) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw.replace(/^\/+/, '')}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  const host = url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\d*\./, '');
  if (!host.includes('.')) return null;
  const path = url.pathname.toLowerCase().replace(/\/+$/, '');
  return { host, path };
}

const MULTI_LABEL_SUFFIXES = new Set([
  'co.uk',
  'org.uk',
  'gov.uk',
  'ac.uk',
  'com.au',
  'org.au',
  'gov.au',
  'edu.au',
  'gc.ca',
  'fed.us',
  'com.mx',
  'gob.mx',
]);
// Second-level labels under <state>.us that are public suffixes of their own (k12.tx.us, cc.ca.us).
const US_STATE_SUBSUFFIXES = new Set(['k12', 'cc', 'lib', 'tec', 'gen', 'state', 'cog', 'dst', 'mus', 'pvt']);

/**
 * The domain a registrant owns: austintexas.gov for www.austintexas.gov, austin.mn.us for
 * ci.austin.mn.us, springfield.k12.or.us for itself. A small public-suffix table: the ones
 * US public-sector sites use.
 */
export function registrableDomain(host: string): string {
  const labels = host.toLowerCase().split('.').filter(Boolean);
  if (labels.length <= 2) return labels.join('.');
  const last = labels[labels.length - 1];
  const second = labels[labels.length - 2] ?? '';
  const third = labels[labels.length - 3] ?? '';
  if (last === 'us' && second.length === 2 && findState(second)?.country === 'US') {
    const take = US_STATE_SUBSUFFIXES.has(third) && labels.length >= 4 ? 4 : 3;
    return labels.slice(-take).join('.');
  }
  if (MULTI_LABEL_SUFFIXES.has(`${second}.${last}`)) return labels.slice(-3).join('.');
  return labels.slice(-2).join('.');
}

const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'comcast.net',
  'att.net',
  'verizon.net',
  'mail.com',
  'gmx.com',
  'yandex.com',
  'zoho.com',
]);

interface WebSignal {
  evidence: WebEvidence;
  signals: ScoreSignal[];
  reason: string | null;
}

function webSignals(account: ScoringAccount, buyer: ScoringBuyer, w: Weights): WebSignal {
  const site = parseWebAddress(account.website);
  const page = parseWebAddress(buyer.url);
  if (!page) return { evidence: 'none', signals: [], reason: null };
  const shownPage = `${page.host}${page.path}`;

  let evidence: WebEvidence = 'none';
  let website: ScoreSignal | null = null;
  let reason: string | null = null;
  if (site) {
    if (site.host === page.host && (page.path === '' || `${site.path}/`.startsWith(`${page.path}/`))) {
      evidence = 'home-page';
      website = {
        signal: 'website',
        points: w.website,
        detail: `website ${site.host} = buyer url ${shownPage}`,
      };
      reason = `website ${site.host}`;
    } else if (site.host === page.host) {
      evidence = 'section';
      website = {
        signal: 'website',
        points: w.websitePartial,
        detail: `website ${site.host}${site.path}: the buyer's url ${shownPage} is another page of the same site`,
      };
      reason = `same website as ${shownPage}`;
    } else if (registrableDomain(site.host) === registrableDomain(page.host)) {
      evidence = 'domain';
      website = {
        signal: 'website',
        points: w.websitePartial,
        detail: `website ${site.host} and buyer url ${page.host} share the domain ${registrableDomain(page.host)}`,
      };
      reason = `same domain ${registrableDomain(page.host)}`;
    } else {
      evidence = 'mismatch';
      website = {
        signal: 'website',
        points: w.websiteMismatch,
        detail: `website ${site.host} ≠ buyer url ${page.host}`,
      };
    }
  }
  const signals = website ? [website] : [];
  if (evidence === 'home-page' || evidence === 'section') return { evidence, signals, reason };

  // Email domains: the host itself or a subdomain of it (austin.utexas.edu for utexas.edu) counts fully.
  let email: { evidence: WebEvidence; signal: ScoreSignal; reason: string } | null = null;
  for (const raw of account.emailDomains ?? []) {
    const domain = raw.trim().toLowerCase().replace(/^.*@/, '').replace(/\.$/, '');
    if (!domain || FREE_MAIL.has(domain)) continue;
    if (domain === page.host || domain.endsWith(`.${page.host}`)) {
      email = {
        evidence: 'email',
        signal: {
          signal: 'email-domain',
          points: w.emailDomain,
          detail: `email domain ${domain} ~ buyer url ${page.host}`,
        },
        reason: `email domain ${domain}`,
      };
      break;
    }
    if (!email && registrableDomain(domain) === registrableDomain(page.host)) {
      const points = round3(w.emailDomain * 0.6);
      email = {
        evidence: 'email-domain',
        signal: {
          signal: 'email-domain',
          points,
          detail: `email domain ${domain} and buyer url ${page.host} share the domain ${registrableDomain(domain)}`,
        },
        reason: `email domain in ${registrableDomain(domain)}`,
      };
    }
  }
  if (!email) return { evidence, signals, reason };
  if (evidence === 'domain' && (website?.points ?? 0) >= email.signal.points)
    return { evidence, signals, reason };
  // The email evidence replaces a weaker same-domain website signal; a mismatching website stays.
  const kept = evidence === 'domain' ? [] : signals;
  return { evidence: email.evidence, signals: [...kept, email.signal], reason: email.reason };
}

// ---- State --------------------------------------------------------------------------------------------

function stateSignal(
  account: ScoringAccount,
  name: NormalizedName | null,
  buyer: ScoringBuyer,
  w: Weights,
): { signal: ScoreSignal; disqualified: boolean; reason: string } {
  const given = account.state?.trim() || null;
  const fromAccount = given ? findState(given) : undefined;
  const fromName = !fromAccount && name?.stateCode ? findState(name.stateCode) : undefined;
  const mine = fromAccount ?? fromName;
  const origin = fromName ? ' (from the name)' : '';
  const theirs = buyer.stateCode ? findState(buyer.stateCode) : undefined;
  if (!mine) {
    const why = given ? `account state "${given}" not recognised` : 'account has no state';
    return {
      signal: { signal: 'state', points: 0, detail: `${why}; not compared` },
      disqualified: false,
      reason: 'state not compared',
    };
  }
  if (!theirs) {
    return {
      signal: { signal: 'state', points: 0, detail: `buyer has no state; account in ${mine.code}${origin}` },
      disqualified: false,
      reason: 'buyer state unknown',
    };
  }
  if (mine.code === theirs.code) {
    return {
      signal: { signal: 'state', points: w.state, detail: `${mine.code}${origin} = ${theirs.code}` },
      disqualified: false,
      reason: `state ${mine.code}`,
    };
  }
  return {
    signal: {
      signal: 'state',
      points: w.stateMismatch,
      detail: `account in ${mine.code}${origin}, buyer in ${theirs.code}`,
    },
    disqualified: true,
    reason: `state mismatch (${mine.code} vs ${theirs.code})`,
  };
}

// ---- Type ---------------------------------------------------------------------------------------------

const BARE_NAME_PRIOR_SHARE: Partial<Record<TypeHint, number>> = {
  city: 1,
  county: 2 / 3,
  'school-district': 1 / 3,
};

function typeSignal(
  name: NormalizedName | null,
  buyer: ScoringBuyer,
  buyerName: NormalizedName,
  w: Weights,
): { signal: ScoreSignal | null; reason: string | null } {
  const theirs = hintOfBuyerType(buyer.type) ?? (buyer.type ? null : buyerName.typeHint);
  const shownType = buyer.type ?? `named as ${theirs ? TYPE_HINT_LABELS[theirs] : 'unknown'}`;
  const mine = name?.typeHint ?? null;
  if (!mine) {
    const share = theirs ? (BARE_NAME_PRIOR_SHARE[theirs] ?? 0) : 0;
    if (!name || share === 0) return { signal: null, reason: null };
    return {
      signal: {
        signal: 'type',
        points: round3(w.bareNamePrior * share),
        detail: `account name has no type word; a bare place name most often means the city, then the county, then the school district (buyer: ${shownType})`,
      },
      reason: null,
    };
  }
  const says = `account name says "${name?.typeEvidence ?? mine}" (${TYPE_HINT_LABELS[mine]})`;
  if (!theirs) {
    return {
      signal: { signal: 'type', points: 0, detail: `${says}; buyer type ${shownType} not comparable` },
      reason: null,
    };
  }
  if (theirs === mine) {
    return {
      signal: { signal: 'type', points: w.typeAgreement, detail: `${says}; buyer type ${shownType}` },
      reason: `type agrees (${TYPE_HINT_LABELS[mine]})`,
    };
  }
  if (typeHintsRelated(mine, theirs)) {
    return {
      signal: { signal: 'type', points: 0, detail: `${says}; buyer type ${shownType} is related` },
      reason: null,
    };
  }
  return {
    signal: { signal: 'type', points: w.typeConflict, detail: `${says}; buyer type ${shownType} conflicts` },
    reason: `type conflict (${TYPE_HINT_LABELS[mine]} vs ${shownType})`,
  };
}

// ---- Score --------------------------------------------------------------------------------------------

export function resolveWeights(weights?: Partial<Weights>): Weights {
  const merged: Weights = { ...DEFAULT_WEIGHTS };
  for (const [key, value] of Object.entries(weights ?? {}) as [keyof Weights, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isFinite(value)) throw new RangeError(`weights.${key} must be a finite number`);
    merged[key] = value;
  }
  return merged;
}

/** Scores `buyer` against `account`; the signals' points add up to the score. */
export function scoreCandidate(
  account: ScoringAccount,
  buyer: ScoringBuyer,
  weights?: Partial<Weights>,
): ScoreResult {
  const w = resolveWeights(weights);
  const signals: ScoreSignal[] = [];
  const reasons: string[] = [];
  const add = (signal: ScoreSignal) => signals.push({ ...signal, points: round3(signal.points) });

  const given = typeof account.name === 'string' ? account.name.trim() : account.name;
  const baseName = typeof given === 'string' ? (given ? normalizeName(given) : null) : given;
  const buyerName = normalizeName(buyer.name);

  // Name, and an acronym reading of it when that compares better.
  let name = baseName;
  let nameSimilarity = 0;
  if (baseName) {
    const base = compareNames(baseName, buyerName);
    nameSimilarity = base.similarity;
    add({ signal: 'name', points: w.name * base.similarity, detail: base.detail });
    const reading = acronymReading(baseName, buyerName);
    if (reading) {
      const read = compareNames(reading.name, buyerName);
      if (read.similarity > base.similarity) {
        name = reading.name;
        nameSimilarity = read.similarity;
        add({
          signal: 'common-name',
          points: w.name * w.commonNameCredit * (read.similarity - base.similarity),
          detail: `"${reading.acronym.toUpperCase()}" read as the initials of "${reading.words}": ${read.detail}`,
        });
        reasons.push(`name matched reading ${reading.acronym.toUpperCase()} as "${reading.words}"`);
      }
    }
    if (!reasons.length) {
      // Only the abbreviations the buyer's name does not share explain why the names compare equal.
      const theirs = new Set(buyerName.expansions.map((e) => e.toLowerCase()));
      const expanded = baseName.expansions
        .filter((e) => e.includes(' → ') && !theirs.has(e.toLowerCase()))
        .map((e) => e.split(' → ')[0]);
      if (base.similarity === 1) {
        reasons.push(expanded.length ? `name equal after expanding ${expanded.join(', ')}` : 'name equal');
      } else reasons.push(`name ${round3(base.similarity).toFixed(2)} similar`);
    }
  } else {
    add({ signal: 'name', points: 0, detail: 'account has no name' });
  }

  const state = stateSignal(account, name, buyer, w);
  add(state.signal);
  reasons.push(state.reason);

  const web = webSignals(account, buyer, w);
  for (const s of web.signals) add(s);
  if (web.reason) reasons.push(web.reason);

  const type = typeSignal(name, buyer, buyerName, w);
  if (type.signal) add(type.signal);
  if (type.reason) reasons.push(type.reason);

  const raw = round3(signals.reduce((sum, s) => sum + s.points, 0));
  const score = Math.min(1, Math.max(0, raw));
  if (score !== raw) {
    add({
      signal: 'clamp',
      points: score - raw,
      detail:
        raw > 1
          ? `evidence adds up to ${raw}; the score is capped at 1`
          : `evidence adds up to ${raw}; the score is floored at 0`,
    });
  }
  const webPoints = round3(
    signals
      .filter((s) => s.signal === 'website' || s.signal === 'email-domain')
      .reduce((sum, s) => sum + s.points, 0),
  );
  return {
    score: round3(score),
    signals,
    disqualified: state.disqualified,
    nameSimilarity: round3(nameSimilarity),
    web: web.evidence,
    webPoints,
    reasons,
  };
}
