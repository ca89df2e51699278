// The third step: what goes to the CRM. The mapped fields under each field's policy, the buyer's
// signals as the notes (and follow-up tasks) not yet on the account, and our provenance fields; every
// value fitted to what the CRM's field holds.
import type { AccountRef, AccountSnapshot, NoteDraft } from '../../connectors/types.ts';
import type { BridgeSignal } from '../buyer-intel/schemas.ts';
import { followUpOf, type SignalRef, signalRefOf } from '../follow-ups/drafts.ts';
import { NO_FOLLOW_UPS } from '../follow-ups/settings.ts';
import { PROVENANCE_FIELDS as P, PROVENANCE_FIELD_DEFINITIONS } from '../map/field-definitions.ts';
import { type FitNote, fitWrites } from '../map/fit.ts';
import { type FieldWritePlan, planFieldWrites } from '../map/plan.ts';
import type { MatchDecision } from '../resolve/types.ts';
import { signalToNote } from '../write/signal-notes.ts';
import type { Fetched } from './fetch-step.ts';
import { type CrmRead, statusOf } from './resolve-step.ts';
import type { EnrichOptions, EnrichResult, PipelineDeps } from './types.ts';

const PROVENANCE_BY_NAME = new Map(PROVENANCE_FIELD_DEFINITIONS.map((d) => [d.name, d]));

/** What the map step planned for a matched buyer. */
export interface Planned {
  fields: FieldWritePlan;
  notes: PlannedNotes;
}

/** Map: the mapped fields under each field's policy, and the notes not yet on the account. */
export async function mapStep(
  deps: PipelineDeps,
  ref: AccountRef,
  crm: CrmRead,
  buyerId: string,
  fetched: Fetched,
  at: { now: Date; dryRun: boolean },
): Promise<Planned> {
  const fields = planFieldWrites({
    mapping: deps.mapping,
    attributes: fetched.attributes,
    current: crm.account.fields,
    ledger: fetched.ledger,
    limits: crm.fieldLimits,
  });
  return { fields, notes: await planNotes(deps, ref, crm, buyerId, fetched.signals, at) };
}

export interface PlannedNotes {
  /** The notes (and follow-up tasks) to create, up to the run's cap. */
  create: NoteDraft[];
  /** The provider row of each note or task, by key: a follow-up's task closes it later. */
  signalOf: ReadonlyMap<string, SignalRef>;
  alreadyPresent: number;
  overCap: number;
  /** The notes to create were marked pending with the CRM's keys (else they are marked just before). */
  markedPending: boolean;
}

export const NO_NOTES: PlannedNotes = {
  create: [],
  signalOf: new Map(),
  alreadyPresent: 0,
  overCap: 0,
  markedPending: false,
};

async function planNotes(
  deps: PipelineDeps,
  ref: AccountRef,
  crm: CrmRead,
  buyerId: string,
  signals: readonly BridgeSignal[],
  { now, dryRun }: { now: Date; dryRun: boolean },
): Promise<PlannedNotes> {
  const owner = { crm: ref.crm, ownerId: crm.account.ownerId };
  const signalOf = new Map<string, SignalRef>();
  const drafts = signals.map((s) => {
    const note = signalToNote(ref.accountId, buyerId, s);
    signalOf.set(note.dedupeKey, signalRefOf(s));
    return followUpOf(note, s, owner, deps.followUps ?? NO_FOLLOW_UPS, now);
  });
  const unique = [...new Map(drafts.map((d) => [d.dedupeKey, d])).values()];
  const ours = await deps.ledgers.noteKnowledge(
    ref,
    unique.map((d) => d.dedupeKey),
  );
  const unsure = unique.filter((d) => !ours.known.has(d.dedupeKey)).map((d) => d.dedupeKey);
  // The CRM is the source of truth: a note our records do not hold in full (never read, lost by
  // Redis, or pending since a crash between creating it and recording it) is found here.
  const onCrm =
    unsure.length && !ours.complete ? new Set(await (crm.noteKeys ?? deps.noteKeysOf(ref))) : undefined;
  const fresh = unique.filter((d) => !ours.known.has(d.dedupeKey) && !onCrm?.has(d.dedupeKey));
  const create = fresh.slice(0, deps.signals.maxNotesPerRun);
  const markedPending = Boolean(onCrm) && !dryRun;
  if (onCrm && markedPending) {
    // Our records hold the CRM's keys in full from now on; the notes about to be created are pending
    // in the same command (write-ahead), the others the CRM answered for are settled.
    await deps.ledgers.recordCrmNotes(ref, [...onCrm], {
      creating: create.map((n) => n.dedupeKey),
      settled: unsure,
    });
  }
  return {
    create,
    signalOf,
    alreadyPresent: unique.length - fresh.length,
    overCap: fresh.length - create.length,
    markedPending,
  };
}

/** Map, our provenance fields: ours alone, so always current (a value is sent only when it differs). */
export function provenanceStep(
  decision: MatchDecision,
  match: EnrichResult['match'],
  crm: CrmRead,
  rejected: EnrichOptions['rejected'],
): { values: Record<string, string | null>; notes: FitNote[] } {
  const { fields } = crm.account;
  const provenance: Record<string, string | null> = {
    [P.status]: statusOf(decision),
    [P.matchReason]: match.explanation.slice(0, 2000),
    [P.matchConfidence]: match.confidence === null ? null : String(match.confidence),
    [P.candidates]: decision.status === 'needs_review' ? candidatesText(match.candidates) : null,
    ...(decision.status === 'matched'
      ? { [P.buyerId]: decision.buyerId, [P.buyerName]: match.buyerName }
      : {}),
    // A rejected account names no buyer: its id would pin it to the buyer a person turned down.
    ...(rejected ? { [P.buyerId]: null, [P.buyerName]: null } : {}),
  };
  if (
    decision.status === 'matched' &&
    match.source === 'pinned' &&
    fields[P.matchReason] &&
    fields[P.status] === 'enriched' &&
    fields[P.buyerId] === decision.buyerId
  ) {
    // A re-run of a match already made (our own buyer id) keeps the reason it was made for. Only then:
    // an account that needed review or had no match keeps none of those words once a buyer is pinned.
    delete provenance[P.matchReason];
    delete provenance[P.matchConfidence];
  }
  return fitWrites(provenance, PROVENANCE_BY_NAME, crm.fieldLimits);
}

/** What goes to the CRM: the planned updates, the provenance that differs, and the time if anything does. */
export function writesOf(
  account: AccountSnapshot,
  updates: Record<string, string | null>,
  provenance: Record<string, string | null>,
  notes: readonly NoteDraft[],
  now: Date,
): Record<string, string | null> {
  const written = { ...updates };
  for (const [name, value] of Object.entries(provenance))
    if ((account.fields[name] ?? null) !== value) written[name] = value;
  if (Object.keys(written).length || notes.length) written[P.lastEnrichedAt] = now.toISOString();
  return written;
}

/** The candidates as a person reads them in the CRM field. */
function candidatesText(candidates: EnrichResult['match']['candidates']): string {
  return candidates
    .map(
      (c, i) =>
        `${i + 1}. ${c.name} (${[c.stateCode, c.type].filter(Boolean).join(', ')}) — ${c.score.toFixed(2)} [${c.buyerId}]`,
    )
    .join('\n');
}
