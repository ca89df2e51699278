// The dry run of a mapping change on a sample of recently enriched accounts, before it is saved: for
// each account and each CRM field the change touches, the value the CRM held after our last job, what
// the mapping in force does with it and what the new one would. The same plan code the pipeline runs
// (src/map/plan.ts), on the buyer's attributes (through the provider's cache), the field values our
// last job saw and wrote (the stored outcome) and what we last wrote (the write history): nothing is
// read from or written to a CRM.
import type { BuyerField } from '../buyer-intel/fields.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import { type FieldChange, type FieldDecision, planFieldWrites } from '../map/plan.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { Outcome, OutcomeFilter, Outcomes } from '../store/outcomes.ts';
import { diffMappings, type RowChange } from './diff.ts';

export interface PreviewDeps {
  /** Enriched accounts, most recently updated first. */
  recentEnriched(limit: number): Promise<Outcome[]>;
  lastWrittenMany(
    crm: string,
    tenant: string,
    ids: readonly string[],
  ): Promise<Map<string, Record<string, string>>>;
  /** The buyer's attributes (the provider's cache first). */
  attributesOf(buyerId: string, keys: readonly BuyerField[]): Promise<Partial<Record<BuyerField, unknown>>>;
  /** How many accounts a filter shows; needs review with a best score from `floor` up. */
  count?(filter: OutcomeFilter): Promise<number>;
  countApprovable?(floor: number): Promise<number>;
}

/** A change of thresholds, and the accounts whose next enrichment it may decide otherwise. */
export interface ThresholdEffect {
  from: MatchThresholds;
  to: MatchThresholds;
  /** Lowered floor: accounts waiting for review whose best candidate reaches the new one. */
  reviewReaching?: number;
  /**
   * Raised floor: accounts matched by name with a confidence below the new one. They keep their buyer
   * (its id on the record pins it at the next enrichment); new accounts like them go to review.
   */
  matchedBelow?: number;
}

/** What a mapping does with one field of one account. */
export interface PreviewCell {
  decision: FieldDecision;
  /** What the field holds afterwards. */
  value: string | null;
  reason: string;
}

export interface PreviewRow {
  crm: string;
  tenant: string;
  accountId: string;
  accountName: string | null;
  property: string;
  /** The field's value after our last job (what it saw there, or what it wrote). */
  current: string | null;
  /** Null: the field is not in that mapping. */
  before: PreviewCell | null;
  after: PreviewCell | null;
  /** The field would end up holding something else than under the mapping in force. */
  differs: boolean;
}

export interface MappingPreview {
  sampled: number;
  changes: RowChange[];
  rows: PreviewRow[];
  /** Accounts whose buyer could not be read now (the provider unreachable): left out, with why. */
  unavailable: { accountName: string | null; accountId: string; reason: string }[];
  /** Set when the thresholds change too. */
  thresholds?: ThresholdEffect;
}

/**
 * What a change of the floor may do at the accounts' next enrichment, counted in the store: a rival
 * within the margin, a contradiction or a person's decision can still hold a match back, so these are
 * the accounts it can reach, not a promise.
 */
export async function thresholdEffect(
  deps: PreviewDeps,
  from: MatchThresholds,
  to: MatchThresholds,
): Promise<ThresholdEffect | undefined> {
  if (from.acceptThreshold === to.acceptThreshold && from.ambiguityMargin === to.ambiguityMargin)
    return undefined;
  const effect: ThresholdEffect = { from, to };
  if (to.acceptThreshold < from.acceptThreshold && deps.countApprovable)
    effect.reviewReaching = await deps.countApprovable(to.acceptThreshold);
  // Confidences are kept to two decimals: below the new floor is at most a hundredth under it.
  if (to.acceptThreshold > from.acceptThreshold && deps.count)
    effect.matchedBelow = await deps.count({
      cohort: 'matched_by_name',
      maxConfidence: Math.round(to.acceptThreshold * 100 - 1) / 100,
    });
  return effect;
}

export const PREVIEW_SAMPLE = 20;

/** The field's value after our last job: what it wrote or cleared, else what it found. */
function afterLastJob(f: { old: string | null; new: string | null; decision: string }): string | null {
  if (f.decision === 'write') return f.new;
  if (f.decision === 'clear') return null;
  return f.old;
}

function cellOf(change: FieldChange | undefined): PreviewCell | null {
  if (!change) return null;
  const value = change.decision === 'write' ? change.new : change.decision === 'clear' ? null : change.old;
  return { decision: change.decision, value, reason: change.reason };
}

function only(mapping: Mapping, properties: ReadonlySet<string>): Mapping {
  return { ...mapping, fields: mapping.fields.filter((f) => properties.has(f.property)) };
}

export async function previewMappingChange(
  deps: PreviewDeps,
  from: Mapping,
  to: Mapping,
  sample = PREVIEW_SAMPLE,
): Promise<MappingPreview> {
  const changes = diffMappings(from, to);
  if (!changes.length) return { sampled: 0, changes, rows: [], unavailable: [] };
  const touched = new Set(changes.map((c) => c.property));
  const before = only(from, touched);
  const after = only(to, touched);
  const keys = [...new Set([...before.fields, ...after.fields].map((f) => f.attribute))];
  const accounts = await deps.recentEnriched(sample);
  const ledgers = new Map<string, Map<string, Record<string, string>>>();
  for (const key of new Set(accounts.map((a) => `${a.crm}\u0000${a.tenant}`))) {
    const [crm = '', tenant = ''] = key.split('\u0000');
    const ids = accounts.filter((a) => a.crm === crm && a.tenant === tenant).map((a) => a.accountId);
    ledgers.set(key, await deps.lastWrittenMany(crm, tenant, ids));
  }
  const unavailable: MappingPreview['unavailable'] = [];
  const perAccount = await Promise.all(
    accounts.map(async (account): Promise<PreviewRow[]> => {
      if (!account.buyerId) return [];
      let attributes: Partial<Record<BuyerField, unknown>>;
      try {
        attributes = await deps.attributesOf(account.buyerId, keys);
      } catch (err) {
        unavailable.push({
          accountName: account.accountName,
          accountId: account.accountId,
          reason: err instanceof Error ? err.message : String(err),
        });
        return [];
      }
      const current: Record<string, string | null> = {};
      for (const f of account.detail?.fields ?? []) current[f.property] = afterLastJob(f);
      const ledger = ledgers.get(`${account.crm}\u0000${account.tenant}`)?.get(account.accountId) ?? {};
      const plan = (mapping: Mapping) =>
        new Map(
          planFieldWrites({ mapping, attributes, current, ledger }).changes.map((c) => [c.property, c]),
        );
      const was = plan(before);
      const will = plan(after);
      return [...touched].map((property) => {
        const b = cellOf(was.get(property));
        const a = cellOf(will.get(property));
        return {
          crm: account.crm,
          tenant: account.tenant,
          accountId: account.accountId,
          accountName: account.accountName,
          property,
          current: current[property] ?? null,
          before: b,
          after: a,
          differs: (b?.value ?? current[property] ?? null) !== (a?.value ?? current[property] ?? null),
        };
      });
    }),
  );
  return { sampled: accounts.length, changes, rows: perAccount.flat(), unavailable };
}

/** The sample: the most recently updated accounts matched by id or by name, newest first. */
export function recentEnrichedFrom(outcomes: () => Promise<Pick<Outcomes, 'list'>>) {
  return async (limit: number): Promise<Outcome[]> => {
    const o = await outcomes();
    const page = { sort: 'date', direction: 'desc', limit } as const;
    const [byId, byName] = await Promise.all([
      o.list({ cohort: 'matched_by_id' }, page),
      o.list({ cohort: 'matched_by_name' }, page),
    ]);
    return [...byId.rows, ...byName.rows]
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
      .slice(0, limit);
  };
}
