// Size: the one job, step by step in its order; splitting the steps apart would hide the order they must run in.
// One enrichment of one CRM account: read it → resolve it to a buyer → fetch the mapped attributes
// (one bulk call) and recent signals (one call) → plan field writes under each field's policy and the
// notes not yet on the account → write. Every step is idempotent: delivery is at least once, so a job
// may run twice and must leave the account as if it ran once.
import type { AccountRef, CrmConnector, CrmKind, NoteDraft } from '../../connectors/types.ts';
import type { ReviewInstruction } from '../../queues/review-instruction.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { BuyerField } from '../buyer-intel/fields.ts';
import { followUpOf, type SignalRef, signalRefOf } from '../follow-ups/drafts.ts';
import { type FollowUpSettings, NO_FOLLOW_UPS } from '../follow-ups/settings.ts';
import { PROVENANCE_FIELD_DEFINITIONS, PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import { type FitNote, fitWrites } from '../map/fit.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import { type FieldChange, planFieldWrites } from '../map/plan.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { MatchDecision, ScoredCandidate } from '../resolve/types.ts';
import { IntegrationError } from '../shared/errors.ts';
import type { BatchedWrites } from '../write/batched-writes.ts';
import type { WriteOrigin } from '../write/journal.ts';
import type { Ledgers } from '../write/ledgers.ts';
import { signalToNote } from '../write/signal-notes.ts';
import type { CrmReads } from './crm-reads.ts';
import { confirmedReason } from './review-reasons.ts';
import { buyerSignalParams, type RunSignals, type SignalSettings } from './run-signals.ts';
import { writeContextOf } from './write-context.ts';

export interface PipelineDeps {
  buyerIntel: Pick<BuyerIntelClient, 'getBuyerAttributesBulk' | 'listRecentBuyerSignals'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  /** Reads the account (mapped and provenance fields, and its ids); batched across jobs (crm-reads.ts). */
  readAccount: CrmReads['readAccount'];
  /** The keys of the notes on the account, as the CRM holds them; batched across jobs (crm-reads.ts). */
  noteKeysOf: CrmReads['noteKeysOf'];
  /**
   * Set where accounts are read together (a backfill chunk): an account our records do not answer for
   * in full has its note keys asked for with its read, in that step's batch, instead of in a step of
   * their own after the Buyer Intelligence calls. Unset, they are asked for only when needed (an account
   * without a match needs none).
   */
  noteKeysWithRead?: CrmReads['noteKeysOf'];
  resolver: Pick<Resolver, 'resolve'>;
  mapping: Mapping;
  ledgers: Ledgers;
  /** Writes one account's fields; batched across jobs (and recorded, with its context) by the caller. */
  writeAccount: BatchedWrites['writeAccount'];
  /** Creates one note; batched across jobs (and recorded, with its origin) by the caller. */
  createNote: BatchedWrites['createNote'];
  signals: SignalSettings;
  /** A run's signals from the org-wide feed, where the run chose it (run-signals.ts). */
  runSignals?: RunSignals;
  /** Which signals become a task for the account's owner; default none (every signal a note). */
  followUps?: FollowUpSettings;
  now?: () => Date;
}

export type EnrichStatus = 'enriched' | 'needs_review' | 'no_match';

export interface EnrichResult {
  /** `state` as the CRM holds it (a code, a name, or what a person typed). */
  account: AccountRef & { name: string | null; state?: string | null };
  status: EnrichStatus;
  match: {
    buyerId: string | null;
    buyerName: string | null;
    /** The matched buyer's type (the provider's `Type`), when known. */
    buyerType?: string | null;
    confidence: number | null;
    source: string | null;
    explanation: string;
    candidates: {
      buyerId: string;
      name: string;
      stateCode: string | null;
      type: string | null;
      score: number;
    }[];
  };
  /** Every mapped field with the policy's decision; empty unless matched. */
  fields: FieldChange[];
  /** What was (or, in a dry run, would be) sent to the CRM, provenance included. */
  written: Record<string, string | null>;
  /** Values that did not fit their CRM field as they were: cut, rounded or left out, with the reason. */
  fitNotes?: FitNote[];
  notes: { created: { key: string; title: string }[]; alreadyPresent: number; overCap: number };
  dryRun: boolean;
}

/** A write the CRM refused for good (unknown field, deleted account): retrying cannot help. */
export class PermanentWriteError extends IntegrationError {
  constructor(message: string) {
    super(message, { permanent: true });
  }
}

const P = PROVENANCE_FIELDS;
const PROVENANCE_BY_NAME = new Map(PROVENANCE_FIELD_DEFINITIONS.map((d) => [d.name, d]));

function candidateSummary(candidates: ScoredCandidate[]) {
  return candidates.slice(0, 5).map((c) => ({
    buyerId: c.buyerId,
    name: c.name,
    stateCode: c.stateCode,
    type: c.type,
    score: Math.round(c.score * 100) / 100,
  }));
}

/** The candidates as a person reads them in the CRM field. */
function candidatesText(candidates: ScoredCandidate[]): string {
  return candidateSummary(candidates)
    .map(
      (c, i) =>
        `${i + 1}. ${c.name} (${[c.stateCode, c.type].filter(Boolean).join(', ')}) — ${c.score.toFixed(2)} [${c.buyerId}]`,
    )
    .join('\n');
}

function statusOf(decision: MatchDecision): EnrichStatus {
  return decision.status === 'matched' ? 'enriched' : decision.status;
}

export interface EnrichOptions {
  dryRun?: boolean;
  /** A person's decision this job applies: a confirmed buyer, or a search with an edited name/state. */
  review?: ReviewInstruction | undefined;
  /** The account was rejected (a pinned no_match in the store): no search, these words as the reason. */
  rejected?: { reason: string } | undefined;
  /** The run, job and trigger this enrichment belongs to: the write history names them. */
  job?: WriteOrigin | undefined;
}

async function decide(
  deps: PipelineDeps,
  ref: AccountRef,
  account: Awaited<ReturnType<CrmConnector['getAccount']>>,
  options: EnrichOptions,
): Promise<MatchDecision> {
  if (options.rejected)
    return { status: 'no_match', explanation: options.rejected.reason.slice(0, 2000), candidates: [] };
  const review = options.review;
  if (review?.action === 'research') {
    // No cache key: the cached match was found with the name a person just corrected.
    const name = review.name ?? account.name;
    const state = review.state ?? account.state;
    const found = await deps.resolver.resolve({
      id: account.id,
      name,
      state,
      ...placeOf(account),
      pinnedBuyerId: null,
      ...(account.ids ? { ids: account.ids } : {}),
    });
    const as = `"${name ?? ''}"${state ? ` in ${state}` : ''}`;
    return { ...found, explanation: `Re-searched by ${review.actor} as ${as}: ${found.explanation}` };
  }
  return deps.resolver.resolve(
    {
      id: account.id,
      name: account.name,
      state: account.state,
      ...placeOf(account),
      pinnedBuyerId: review?.action === 'confirm' ? review.buyerId : (account.fields[P.buyerId] ?? null),
      // The ids a person keeps on the account decide before its name (src/resolve/by-id.ts).
      ...(account.ids ? { ids: account.ids } : {}),
    },
    `${ref.crm}:${ref.tenant}:${ref.accountId}`,
  );
}

/** Where the account is and its web presence, as the resolver weighs them. */
function placeOf(account: Awaited<ReturnType<CrmConnector['getAccount']>>) {
  return {
    city: account.city,
    zip: account.zip ?? null,
    street: account.street ?? null,
    website: account.website,
    ...(account.emailDomains?.length ? { emailDomains: account.emailDomains } : {}),
  };
}

/** From the run's feed where its run reads one (a backfill, a re-enrichment), else one call. */
async function signalsOf(deps: PipelineDeps, buyerId: string, job: WriteOrigin | undefined) {
  const fromFeed = await deps.runSignals?.signalsOf(job?.runId, buyerId);
  if (fromFeed) return { result: fromFeed };
  return deps.buyerIntel.listRecentBuyerSignals(buyerSignalParams(deps.signals, buyerId));
}

export async function enrichAccount(
  deps: PipelineDeps,
  ref: AccountRef,
  options: EnrichOptions = {},
): Promise<EnrichResult> {
  const dryRun = options.dryRun ?? false;
  const now = (deps.now ?? (() => new Date()))();
  const mapped = deps.mapping.fields;
  const fieldNames = [...new Set([...mapped.map((f) => f.property), ...Object.values(P)])];
  const early =
    deps.noteKeysWithRead && !(await deps.ledgers.notesComplete(ref))
      ? deps.noteKeysWithRead(ref)
      : undefined;
  // Used only if the account gets notes: unused, its failure is no failure of the job.
  early?.catch(() => {});
  const account = await deps.readAccount(ref, fieldNames);
  // What our fields hold in this CRM: every value is fitted to it before it is planned or written.
  const { fieldLimits } = deps.connectorFor(ref.crm, ref.tenant);

  const decision = await decide(deps, ref, account, options);
  const status = statusOf(decision);
  const match: EnrichResult['match'] = {
    buyerId: decision.status === 'matched' ? decision.buyerId : null,
    buyerName: decision.status === 'matched' ? decision.buyerName : null,
    buyerType:
      decision.status === 'matched'
        ? (decision.candidates.find((c) => c.buyerId === decision.buyerId)?.type ?? null)
        : null,
    confidence: decision.status === 'no_match' ? null : Math.round(decision.confidence * 100) / 100,
    source: decision.status === 'matched' ? decision.source : null,
    explanation: decision.explanation,
    candidates: candidateSummary(decision.candidates),
  };

  const written: Record<string, string | null> = {};
  let fields: FieldChange[] = [];
  let fieldUpdates: Record<string, string | null> = {};
  let notes: NoteDraft[] = [];
  /** The provider row of each note or task, by key: a follow-up's task closes it later. */
  const signalOf = new Map<string, SignalRef>();
  let alreadyPresent = 0;
  let overCap = 0;
  /** The notes to create were marked pending with the CRM's keys (else they are marked just before). */
  let markedPending = false;

  if (decision.status === 'matched') {
    // `Name` and `Type` describe a pinned buyer (no search described it) at no extra call.
    const keys = [...new Set<BuyerField>(['Name', 'Type', ...mapped.map((f) => f.attribute)])];
    const [attributes, signals, ledger] = await Promise.all([
      deps.buyerIntel.getBuyerAttributesBulk(decision.buyerId, keys),
      deps.signals.maxNotesPerRun > 0
        ? signalsOf(deps, decision.buyerId, options.job)
        : Promise.resolve({ result: [] }),
      deps.ledgers.writtenFields(ref),
    ]);
    const fetchedName = attributes.buyerData?.Name;
    if (!match.buyerName && typeof fetchedName === 'string') match.buyerName = fetchedName;
    const fetchedType = attributes.buyerData?.Type;
    if (typeof fetchedType === 'string' && fetchedType) match.buyerType = fetchedType;
    if (options.review?.action === 'confirm') {
      // A person's confirmation is the reason now, and it is certain: the score it had as a candidate
      // stays in the words, the confidence field says 1. The source stays `pinned` (cohort: matched by id).
      match.explanation = confirmedReason(
        options.review.actor,
        match.buyerName ?? decision.buyerId,
        options.review.score,
      );
      match.confidence = 1;
    }
    const plan = planFieldWrites({
      mapping: deps.mapping,
      attributes: attributes.buyerData ?? {},
      current: account.fields,
      ledger,
      limits: fieldLimits,
    });
    fields = plan.changes;
    fieldUpdates = plan.updates;
    Object.assign(written, plan.updates);

    const owner = { crm: ref.crm, ownerId: account.ownerId };
    const drafts = signals.result.map((s) => {
      const note = signalToNote(ref.accountId, decision.buyerId, s);
      signalOf.set(note.dedupeKey, signalRefOf(s));
      return followUpOf(note, s, owner, deps.followUps ?? NO_FOLLOW_UPS, now);
    });
    const unique = [...new Map(drafts.map((d) => [d.dedupeKey, d])).values()];
    const ours = await deps.ledgers.noteKnowledge(
      ref,
      unique.map((d) => d.dedupeKey),
    );
    const unsure = unique.filter((d) => !ours.known.has(d.dedupeKey)).map((d) => d.dedupeKey);
    let onCrm: Set<string> | undefined;
    if (unsure.length && !ours.complete) {
      // The CRM is the source of truth: a note our records do not hold in full (never read, lost by
      // Redis, or pending since a crash between creating it and recording it) is found here.
      onCrm = new Set(await (early ?? deps.noteKeysOf(ref)));
    }
    const fresh = unique.filter((d) => !ours.known.has(d.dedupeKey) && !onCrm?.has(d.dedupeKey));
    alreadyPresent = unique.length - fresh.length;
    notes = fresh.slice(0, deps.signals.maxNotesPerRun);
    overCap = fresh.length - notes.length;
    if (onCrm && !dryRun) {
      // Our records hold the CRM's keys in full from now on; the notes about to be created are pending
      // in the same command (write-ahead), the others the CRM answered for are settled.
      await deps.ledgers.recordCrmNotes(ref, [...onCrm], {
        creating: notes.map((n) => n.dedupeKey),
        settled: unsure,
      });
      markedPending = true;
    }
  }

  // Provenance: ours alone, so always current; a value is sent only when it differs.
  const provenance: Record<string, string | null> = {
    [P.status]: status,
    [P.matchReason]: match.explanation.slice(0, 2000),
    [P.matchConfidence]: match.confidence === null ? null : String(match.confidence),
    [P.candidates]: decision.status === 'needs_review' ? candidatesText(decision.candidates) : null,
    ...(decision.status === 'matched'
      ? { [P.buyerId]: decision.buyerId, [P.buyerName]: match.buyerName }
      : {}),
    // A rejected account names no buyer: its id would pin it to the buyer a person turned down.
    ...(options.rejected ? { [P.buyerId]: null, [P.buyerName]: null } : {}),
  };
  if (
    decision.status === 'matched' &&
    match.source === 'pinned' &&
    account.fields[P.matchReason] &&
    account.fields[P.status] === 'enriched' &&
    account.fields[P.buyerId] === decision.buyerId
  ) {
    // A re-run of a match already made (our own buyer id) keeps the reason it was made for. Only then:
    // an account that needed review or had no match keeps none of those words once a buyer is pinned.
    delete provenance[P.matchReason];
    delete provenance[P.matchConfidence];
  }
  const fittedProvenance = fitWrites(provenance, PROVENANCE_BY_NAME, fieldLimits);
  const fitNotes: FitNote[] = [
    ...fields.flatMap((f) => (f.fit ? [{ field: f.property, ...f.fit }] : [])),
    ...fittedProvenance.notes,
  ];
  for (const [name, value] of Object.entries(fittedProvenance.values)) {
    if ((account.fields[name] ?? null) !== value) written[name] = value;
  }

  if (Object.keys(written).length || notes.length) written[P.lastEnrichedAt] = now.toISOString();

  const created: { key: string; title: string }[] = [];
  if (!dryRun) {
    const origin = { ...options.job, buyerId: match.buyerId };
    // Write-ahead: a crash after the CRM made a note and before we record it leaves the marker behind.
    if (notes.length && !markedPending)
      await deps.ledgers.notesPending(
        ref,
        notes.map((n) => n.dedupeKey),
      );
    // The fields and the notes leave together (one step of a chunk, src/enrich-job/enrich-jobs.ts): neither
    // needs the other's answer, and the pending markers keep a retry from doubling a note either way.
    const [update, results] = await Promise.all([
      Object.keys(written).length
        ? deps.writeAccount(
            ref.crm,
            ref.tenant,
            { accountId: ref.accountId, fields: written },
            writeContextOf(options.job, match.buyerId, fields, account.fields, written),
          )
        : undefined,
      Promise.all(
        notes.map((n) =>
          deps.createNote(ref.crm, ref.tenant, n, { ...origin, signal: signalOf.get(n.dedupeKey) }),
        ),
      ),
    ]);
    const ok = results.flatMap((r) => (r.ok ? [r.dedupeKey] : []));
    await deps.ledgers.recordNotes(ref, ok);
    for (const [i, r] of results.entries())
      if (r.ok) created.push({ key: r.dedupeKey, title: notes[i]?.title ?? '' });
    if (update && !update.ok) {
      const message = `writing account ${ref.accountId} failed: ${update.error.message}`;
      throw update.error.permanent ? new PermanentWriteError(message) : new Error(message);
    }
    // The values written (none unless the write above went through) and the buyer: one round trip. A
    // cleared field drops the cache, rebuilt from the history (where a cleared field is not ours).
    const values = Object.entries(fieldUpdates).filter((e): e is [string, string] => e[1] !== null);
    await deps.ledgers.recordMatch(
      ref,
      decision.status === 'matched' ? decision.buyerId : null,
      Object.fromEntries(values),
    );
    if (values.length < Object.keys(fieldUpdates).length) await deps.ledgers.forgetWrittenFields(ref);
    const failed = results.find((r) => !r.ok);
    if (failed && !failed.ok) {
      const message = `creating a note on account ${ref.accountId} failed: ${failed.error.message}`;
      throw failed.error.permanent ? new PermanentWriteError(message) : new Error(message);
    }
  } else {
    for (const n of notes) created.push({ key: n.dedupeKey, title: n.title });
  }

  return {
    account: { ...ref, name: account.name, state: account.state },
    status,
    match,
    fields,
    written,
    fitNotes,
    notes: { created, alreadyPresent, overCap },
    dryRun,
  };
}
