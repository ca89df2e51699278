// The accounts of the enrichment benches, as a CRM holds public buyers: not the buyer's own name but
// how people type it (`Austin, City of`, `Austin TX`, `Travis Co.`, `Plano ISD`, `Springfield PD`),
// some with a typo or without a state, some with the website, and a share of companies that are no
// public buyer at all. So, as in production, a share of them goes to review or finds no match.
// Seeded: the same sizes give the same accounts.
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { LAST_NAMES } from '../emulators/buyer-intel/data/names.ts';
import { seededRandom } from '../emulators/shared/faults.ts';
import { INDUSTRIES, MORE_INDUSTRIES, SUFFIXES } from './review-data.ts';

export interface BenchAccount {
  name: string;
  /** The state code, or '' when the CRM has none. */
  state: string;
  domain?: string;
  /** How the name was made (for the report): exact, variant, typo, non-buyer. */
  kind: 'exact' | 'variant' | 'typo' | 'non-buyer';
  /** The buyer the account stands for (none for a non-buyer): to check what it was matched to. */
  buyerId?: string;
}

/** Shares of the mix (the rest are variants of the buyer's name). */
export const ACCOUNT_MIX = {
  exact: 0.15,
  typo: 0.08,
  nonBuyer: 0.08,
  /** Of the buyers' accounts: no state. */
  noState: 0.15,
  /** Of the buyers' accounts: the website's domain filled in. */
  domain: 0.3,
} as const;

type Rule = [RegExp, (m: RegExpMatchArray, st: string) => string[]];

// How CRMs spell each kind of buyer; the first rule that fits a name gives its variants.
const RULES: Rule[] = [
  [
    /^City of (.+)$/,
    ([, n], st) => [`${n}, City of`, `${n} ${st}`, `CITY OF ${n?.toUpperCase()}`, `${n} City Hall`],
  ],
  [/^Town of (.+)$/, ([, n], st) => [`${n}, Town of`, `${n} ${st}`, `Town of ${n} ${st}`]],
  [/^Village of (.+)$/, ([, n], st) => [`${n}, Village of`, `${n} ${st}`]],
  [/^(.+) County$/, ([, n], st) => [`${n} Co.`, `${n} County, ${st}`, `County of ${n}`, `${n} Cnty`]],
  [/^(.+) Independent School District$/, ([, n]) => [`${n} ISD`, `${n} Ind. School Dist.`]],
  [/^(.+) Unified School District$/, ([, n]) => [`${n} USD`, `${n} Unified`]],
  [/^(.+) School District$/, ([, n]) => [`${n} SD`, `${n} Schools`, `${n} School Dist.`]],
  [/^(.+) Public Schools$/, ([, n]) => [`${n} Schools`, `${n} PS`]],
  [/^(.+) Police Department$/, ([, n]) => [`${n} PD`, `${n} Police Dept.`, `${n} Police`]],
  [/^(.+) Fire Department$/, ([, n]) => [`${n} FD`, `${n} Fire Dept`, `${n} Fire`]],
  [/^(.+) Fire Rescue$/, ([, n]) => [`${n} Fire`, `${n} FD`]],
  [/^(.+) Public Library$/, ([, n]) => [`${n} Library`, `${n} Pub. Library`]],
  [/^(.+) Community College$/, ([, n]) => [`${n} CC`, `${n} College`]],
  [/^University of (.+)$/, ([, n]) => [`Univ. of ${n}`, `U of ${n}`]],
  [/^(.+) Housing Authority$/, ([, n]) => [`${n} Housing Auth.`, `${n} HA`]],
  [/^(.+) Department of (.+)$/, ([, a, b]) => [`${a} Dept. of ${b}`, `${a} Dept of ${b}`]],
  [/^(.+) Department$/, ([, n]) => [`${n} Dept.`]],
];

/** The ways a CRM spells this buyer (its own name excluded). */
export function nameVariants(name: string, state: string): string[] {
  for (const [re, make] of RULES) {
    const m = name.match(re);
    if (m) return make(m, state);
  }
  return [`${name} (${state})`, name.toUpperCase()];
}

/** One typo a person makes: two neighbouring letters swapped in the longest word. */
export function withTypo(name: string, random: () => number): string {
  const words = name.split(' ');
  let at = 0;
  for (let i = 1; i < words.length; i++) if ((words[i]?.length ?? 0) > (words[at]?.length ?? 0)) at = i;
  const w = words[at] ?? '';
  if (w.length < 4) return `${name}x`;
  const i = 1 + Math.floor(random() * (w.length - 2));
  words[at] = w.slice(0, i) + (w[i + 1] ?? '') + (w[i] ?? '') + w.slice(i + 2);
  return words.join(' ');
}

/**
 * `accounts` accounts over `buyers` distinct buyers of the data set (every buyer at least once, the
 * rest skewed: a few buyers have many accounts, as departments and duplicates do), plus non-buyers, in
 * random order.
 */
export function benchAccounts(dataset: SandboxDataset, accounts: number, buyers: number, seed = 2024) {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const pool = dataset.buyers.filter((b) => b.name && b.stateCode);
  const chosen = Array.from({ length: Math.min(buyers, pool.length) }, (_, i) => {
    const b = pool[Math.floor((i * pool.length) / Math.min(buyers, pool.length))];
    if (!b) throw new Error('data set too small');
    return b;
  });
  const out: BenchAccount[] = [];
  for (let i = 0; i < accounts; i++) {
    if (random() < ACCOUNT_MIX.nonBuyer) {
      const industry = pick(random() < 0.5 ? INDUSTRIES : MORE_INDUSTRIES);
      out.push({
        name: `${pick(LAST_NAMES)} ${industry} ${pick(SUFFIXES)}`,
        state: pick(chosen).stateCode ?? '',
        kind: 'non-buyer',
      });
      continue;
    }
    const b = i < chosen.length ? chosen[i] : chosen[Math.floor(chosen.length * random() ** 2)];
    if (!b) throw new Error('no buyer');
    const st = b.stateCode ?? '';
    const roll = random();
    let name = b.name;
    let kind: BenchAccount['kind'] = 'exact';
    if (roll >= ACCOUNT_MIX.exact) {
      name = pick(nameVariants(b.name, st));
      kind = 'variant';
    }
    if (random() < ACCOUNT_MIX.typo) {
      name = withTypo(name, random);
      kind = 'typo';
    }
    const host = b.url ? new URL(b.url).hostname.replace(/^www\./, '') : undefined;
    out.push({
      name,
      state: random() < ACCOUNT_MIX.noState ? '' : st,
      ...(host && random() < ACCOUNT_MIX.domain ? { domain: host } : {}),
      kind,
      buyerId: b.id,
    });
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as BenchAccount, out[i] as BenchAccount];
  }
  return out;
}
