// The second step, for a matched buyer: its attributes, its recent signals and what we last wrote on the
// account, at once; and the match as the result names it, completed by what was fetched.
import type { AccountRef } from '../../connectors/types.ts';
import type { ReviewInstruction } from '../../queues/review-instruction.ts';
import type { BuyerField } from '../buyer-intel/fields.ts';
import type { BridgeSignal } from '../buyer-intel/schemas.ts';
import type { MatchDecision, ScoredCandidate } from '../resolve/types.ts';
import type { WriteOrigin } from '../write/journal.ts';
import { confirmedReason } from './review-reasons.ts';
import { buyerSignalParams } from './run-signals.ts';
import type { EnrichResult, PipelineDeps } from './types.ts';

/** What the fetch found for a matched buyer. */
export interface Fetched {
  /** The mapped attributes, and the buyer's `Name` and `Type`. */
  attributes: Partial<Record<BuyerField, unknown>>;
  signals: BridgeSignal[];
  /** What we last wrote on the account, by field (the `ours` policy's memory). */
  ledger: Record<string, string>;
}

/** Fetch: the buyer's attributes (one bulk call), its recent signals (one call) and our ledger, at once. */
export async function fetchStep(
  deps: PipelineDeps,
  ref: AccountRef,
  buyerId: string,
  job: WriteOrigin | undefined,
): Promise<Fetched> {
  // `Name` and `Type` describe a pinned buyer (no search described it) at no extra call.
  const keys = [...new Set<BuyerField>(['Name', 'Type', ...deps.mapping.fields.map((f) => f.attribute)])];
  const [attributes, signals, ledger] = await Promise.all([
    deps.buyerIntel.getBuyerAttributesBulk(buyerId, keys),
    deps.signals.maxNotesPerRun > 0 ? signalsOf(deps, buyerId, job) : Promise.resolve({ result: [] }),
    deps.ledgers.writtenFields(ref),
  ]);
  return { attributes: attributes.buyerData ?? {}, signals: signals.result, ledger };
}

/** From the run's feed where its run reads one (a backfill, a re-enrichment), else one call. */
async function signalsOf(deps: PipelineDeps, buyerId: string, job: WriteOrigin | undefined) {
  const fromFeed = await deps.runSignals?.signalsOf(job?.runId, buyerId);
  if (fromFeed) return { result: fromFeed };
  return deps.buyerIntel.listRecentBuyerSignals(buyerSignalParams(deps.signals, buyerId));
}

/** The match as the result and the store name it: the decision, completed by what the fetch found. */
export function describeMatch(
  decision: MatchDecision,
  fetched: Fetched | null,
  review: ReviewInstruction | undefined,
): EnrichResult['match'] {
  const candidates = candidateSummary(decision.candidates);
  if (decision.status !== 'matched')
    return {
      buyerId: null,
      buyerName: null,
      buyerType: null,
      confidence: decision.status === 'no_match' ? null : Math.round(decision.confidence * 100) / 100,
      source: null,
      explanation: decision.explanation,
      candidates,
    };
  const fetchedName = fetched?.attributes.Name;
  const fetchedType = fetched?.attributes.Type;
  const buyerName = !decision.buyerName && typeof fetchedName === 'string' ? fetchedName : decision.buyerName;
  const match = {
    buyerId: decision.buyerId,
    buyerName,
    buyerType:
      typeof fetchedType === 'string' && fetchedType
        ? fetchedType
        : (decision.candidates.find((c) => c.buyerId === decision.buyerId)?.type ?? null),
    confidence: Math.round(decision.confidence * 100) / 100,
    source: decision.source,
    explanation: decision.explanation,
    candidates,
  };
  if (review?.action !== 'confirm') return match;
  // A person's confirmation is the reason now, and it is certain: the score it had as a candidate
  // stays in the words, the confidence field says 1. The source stays `pinned` (cohort: matched by id).
  return {
    ...match,
    explanation: confirmedReason(review.actor, buyerName ?? decision.buyerId, review.score),
    confidence: 1,
  };
}

function candidateSummary(candidates: ScoredCandidate[]) {
  return candidates.slice(0, 5).map((c) => ({
    buyerId: c.buyerId,
    name: c.name,
    stateCode: c.stateCode,
    type: c.type,
    score: Math.round(c.score * 100) / 100,
  }));
}
