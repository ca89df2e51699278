// The accounts of the review bench: what a real backfill of several CRMs leaves in the system of record.
// Account names are the ways CRMs spell public buyers (“Springfield PD”, “City of Austin, TX”, “Travis
// Co.”) over the sandbox's real US cities and counties, plus companies; buyer ids are drawn per tenant
// without replacement, so duplicates (two accounts of a tenant resolved to one buyer) are only the ~2 %
// made on purpose. Seeded: the same count gives the same rows.
import { LAST_NAMES } from '../emulators/buyer-intel/data/names.ts';
import { loadPlaces } from '../emulators/buyer-intel/data/places.ts';
import { createRng, type Rng, uuidFromKey } from '../emulators/buyer-intel/data/rng.ts';
import type { Cohort, NewOutcome, OutcomeCandidate, OutcomeDetail } from '../src/store/schema.ts';

interface Buyer {
  id: string;
  name: string;
  type: string;
  state: string;
  /** How CRMs spell it; the first is the buyer's own name. */
  aliases: string[];
  /** The buyers a search for it also finds (same place, other kinds). */
  siblings: Buyer[];
}

export const TENANTS = [
  { crm: 'hubspot', tenant: '4410021', share: 0.3 },
  { crm: 'hubspot', tenant: '8830044', share: 0.15 },
  { crm: 'hubspot', tenant: '1200933', share: 0.1 },
  { crm: 'salesforce', tenant: '00D5e000000AbCd', share: 0.25 },
  { crm: 'salesforce', tenant: '00D8a000001XyZq', share: 0.15 },
  { crm: 'salesforce', tenant: '00D3k000004PqRs', share: 0.05 },
] as const;

// A real backfill's mix (see bench/README.md); duplicates come on top, out of the matched ones.
const MIX: [Cohort, number][] = [
  ['matched_by_name', 0.55],
  ['matched_by_id', 0.05],
  ['needs_review', 0.25],
  ['no_match', 0.12],
  ['error', 0.03],
];
const DUPLICATE_CHANCE = 0.017;
const DAY_MS = 86_400_000;
const ID_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];

export const INDUSTRIES = [
  'Logistics',
  'Construction',
  'Consulting',
  'Software',
  'Medical Supply',
  'Engineering',
];
export const MORE_INDUSTRIES = [
  'Roofing',
  'Analytics',
  'Security',
  'Environmental',
  'Staffing',
  'Dental Associates',
];
export const SUFFIXES = ['LLC', 'Inc.', 'Group', 'Co.', 'Partners', 'Corp.'];
const ERRORS = [
  'HubSpot answered 502 Bad Gateway (5 attempts)',
  'Salesforce: INVALID_SESSION_ID: Session expired or invalid',
  'Buyer Intelligence answered 503 Service Unavailable (5 attempts)',
  'connection refused by the CRM (5 attempts)',
];

function buyersOf(): Buyer[] {
  const places = loadPlaces();
  const all: Buyer[] = [];
  const group = (specs: [string, string, string[]][], state: string) => {
    const made = specs.map(([name, type, aliases]) => ({
      id: uuidFromKey(`bench|${name}|${state}`),
      name,
      type,
      state,
      aliases: [name, ...aliases],
      siblings: [] as Buyer[],
    }));
    for (const b of made) b.siblings = made.filter((o) => o !== b);
    all.push(...made);
  };
  for (const c of places.cities) {
    const n = c.name;
    const school =
      c.state === 'TX'
        ? [`${n} Independent School District`, [`${n} ISD`]]
        : c.state === 'CA'
          ? [`${n} Unified School District`, [`${n} USD`]]
          : [`${n} Public Schools`, [`${n} Schools`]];
    const specs: [string, string, string[]][] = [
      [`City of ${n}`, 'City', [n, `${n}, ${c.state}`, `CITY OF ${n.toUpperCase()}`, `${n} City Hall`]],
      [`${n} Police Department`, 'PoliceDepartment', [`${n} PD`, `${n} Police Dept.`]],
      [`${n} Fire Department`, 'FireDepartment', [`${n} Fire Dept`, `${n} Fire Rescue`]],
      [`${n} Public Library`, 'Library', [`${n} Library`]],
      [school[0] as string, 'SchoolDistrict', school[1] as string[]],
    ];
    if (c.population > 30_000)
      specs.push([`${n} Community College`, 'HigherEducation', [`${n} CC`, `${n} College`]]);
    if (c.population > 20_000)
      specs.push([`${n} Housing Authority`, 'SpecialDistrict', [`${n} Housing Auth.`]]);
    if (c.population > 100_000)
      specs.push([`${n} Transit Authority`, 'TransportationAgency', [`${n} Transit`]]);
    group(specs, c.state);
  }
  for (const k of places.counties) {
    const s = k.shortName;
    group(
      [
        [k.displayName, 'County', [`${s} Co.`, `${k.displayName}, ${k.state}`]],
        [`${s} County Sheriff's Office`, 'LawEnforcementAgency', [`${s} County Sheriff`, `${s} Co. SO`]],
        [`${s} County Clerk`, 'CountyClerk', [`${s} Co. Clerk`]],
      ],
      k.state,
    );
  }
  return all;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function candidate(b: Buyer, score: number): OutcomeCandidate {
  return { buyerId: b.id, name: b.name, stateCode: b.state, type: b.type, score: round3(score) };
}

function detailOf(rng: Rng, b: Buyer | null, source: string | null): OutcomeDetail {
  const fields = b
    ? [
        ['buyer_intel_type', b.type],
        ['buyer_intel_url', `https://www.${b.name.toLowerCase().replace(/[^a-z]+/g, '')}.gov`],
        ['buyer_intel_county', `${b.state} county`],
        ['buyer_intel_population', String(rng.int(800, 900_000))],
        ['buyer_intel_employee_fte', String(rng.int(10, 9000))],
        ['buyer_intel_budget_amount', String(rng.int(1, 900) * 100_000)],
        ['buyer_intel_ai_adoption_score', String(rng.int(1, 100))],
      ].map(([property, value]) => ({
        property: property as string,
        old: rng.chance(0.2) ? 'old value' : null,
        new: value as string,
        decision: 'write',
        policy: 'ours',
      }))
    : [];
  const written = Object.fromEntries(fields.map((f) => [f.property, f.new]));
  return { source, fields, written, notes: { created: [], alreadyPresent: 0, overCap: 0 } };
}

function accountIdOf(crm: string, rng: Rng): string {
  if (crm === 'hubspot') return String(rng.int(1_000_000_000, 49_999_999_999));
  let id = '0015e00000';
  for (let i = 0; i < 8; i++) id += rng.pick(ID_CHARS);
  return id;
}

export interface ReviewData {
  rows: NewOutcome[];
  /** The name search the bench times: a word found in a few hundred account names, and how many. */
  search: { term: string; matches: number };
}

export function buildReviewData(count: number, now = new Date(), seed = 7): ReviewData {
  const rng = createRng(`review-bench|${seed}`);
  const buyers = buyersOf();
  const rows: NewOutcome[] = [];
  const tenants = TENANTS.map((t) => ({
    ...t,
    order: rng.sample(buyers, buyers.length),
    next: 0,
    matched: [] as Buyer[],
    ids: new Set<string>(),
  }));
  const shares = tenants.map((x) => x.share);
  const [cohorts, weights] = [MIX.map((m) => m[0]), MIX.map((m) => m[1])];
  for (let i = 0; i < count; i++) {
    const t = rng.weighted(tenants, shares);
    let accountId = accountIdOf(t.crm, rng);
    while (t.ids.has(accountId)) accountId = accountIdOf(t.crm, rng);
    t.ids.add(accountId);
    const cohort = rng.weighted(cohorts, weights);
    const base = {
      crm: t.crm,
      tenant: t.tenant,
      account_id: accountId,
      job_id: `${t.crm}:${t.tenant}:${accountId}`,
      trigger: 'backfill',
      updated_at: new Date(now.getTime() - Math.floor(rng.next() * 90 * DAY_MS)),
    };
    const fresh = () => t.order[t.next++ % t.order.length] as Buyer;
    if (cohort === 'matched_by_name' || cohort === 'matched_by_id') {
      const dup = t.matched.length > 0 && rng.chance(DUPLICATE_CHANCE);
      const b = dup ? rng.pick(t.matched) : fresh();
      t.matched.push(b);
      const byId = cohort === 'matched_by_id';
      const confidence = byId ? 1 : round3(rng.normal(0.9, 0.06, 0.75, 1));
      const runnersUp = byId ? [] : rng.sample(b.siblings, rng.int(0, 2));
      rows.push({
        ...base,
        account_name: rng.pick(b.aliases),
        state: rng.chance(0.9) ? b.state : null,
        status: 'enriched',
        cohort,
        matched_by: byId ? 'id' : 'name',
        buyer_id: b.id,
        buyer_name: b.name,
        buyer_type: b.type,
        confidence,
        reason: byId
          ? `Pinned to buyer ${b.id}`
          : `Matched ${b.name} (${b.type}, ${b.state}) with ${confidence.toFixed(2)}: name similar, same state`,
        candidates: JSON.stringify([
          ...(byId ? [] : [candidate(b, confidence)]),
          ...runnersUp.map((s) => candidate(s, confidence - rng.float(0.15, 0.5))),
        ]),
        detail: JSON.stringify(detailOf(rng, b, byId ? 'pinned' : rng.chance(0.2) ? 'cache' : 'search')),
      });
    } else if (cohort === 'needs_review') {
      const b = fresh();
      const best = round3(rng.float(0.4, 0.92, 3));
      const others = rng.sample(b.siblings, rng.int(1, 4));
      const candidates = [candidate(b, best), ...others.map((s) => candidate(s, best - rng.float(0, 0.2)))];
      candidates.sort((x, y) => y.score - x.score);
      const top = candidates[0] as OutcomeCandidate;
      rows.push({
        ...base,
        account_name: rng.chance(0.5) ? (b.aliases.at(-1) as string) : rng.pick(b.aliases),
        state: rng.chance(0.8) ? b.state : null,
        status: 'needs_review',
        cohort,
        confidence: top.score,
        reason: `Needs review: ${top.name} (${top.type}, ${top.stateCode}) scores ${top.score.toFixed(2)}, but ${candidates.length - 1} more are within 0.1`,
        candidates: JSON.stringify(candidates),
        detail: JSON.stringify(detailOf(rng, null, 'search')),
      });
    } else {
      const name = rng.chance(0.7)
        ? `${rng.pick(LAST_NAMES)} ${rng.pick(rng.chance(0.5) ? INDUSTRIES : MORE_INDUSTRIES)} ${rng.pick(SUFFIXES)}`
        : `${fresh().aliases[1] ?? 'Unknown'} Rotary Club`;
      const failed = cohort === 'error';
      rows.push({
        ...base,
        account_name: failed && rng.chance(0.5) ? null : name,
        state: rng.chance(0.7) ? (t.order[rng.int(0, 49)] as Buyer).state : null,
        status: failed ? 'error' : 'no_match',
        cohort,
        reason: failed ? null : `No match for "${name}": searching found no buyer`,
        error: failed ? rng.pick(ERRORS) : null,
        candidates: '[]',
        detail: failed ? null : JSON.stringify(detailOf(rng, null, 'search')),
      });
    }
  }
  return { rows, search: searchTerm(rows) };
}

/** A city name found in a few hundred accounts (closest to 300), as a person would type it. */
function searchTerm(rows: readonly NewOutcome[]): { term: string; matches: number } {
  const terms = ['Springfield', 'Franklin', 'Clinton', 'Madison', 'Washington', 'Georgetown', 'Salem'];
  const counts = terms.map((term) => {
    const lower = term.toLowerCase();
    return { term, matches: rows.filter((r) => r.account_name?.toLowerCase().includes(lower)).length };
  });
  counts.sort((a, b) => Math.abs(a.matches - 300) - Math.abs(b.matches - 300));
  return counts[0] ?? { term: 'Springfield', matches: 0 };
}
