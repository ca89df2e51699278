// The first step: read the account from its CRM, and decide which buyer it is (a rejection, a
// person's review, or the resolver with the account's ids, name, place and web presence).
import type { AccountRef, AccountSnapshot, FieldLimits } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS as P } from '../map/field-definitions.ts';
import { decideWithLearned } from '../resolve/learned.ts';
import type { MatchDecision } from '../resolve/types.ts';
import { researchedReason } from './review-reasons.ts';
import type { EnrichOptions, EnrichStatus, PipelineDeps } from './types.ts';

/** What the read found: the account as the CRM holds it, and what the CRM's fields take. */
export interface CrmRead {
  account: AccountSnapshot;
  /** What our fields hold in this CRM: every value is fitted to it before it is planned or written. */
  fieldLimits: FieldLimits | undefined;
  /** The account's note keys, asked for with the read (a chunk) when our records may not hold them all. */
  noteKeys: Promise<string[]> | undefined;
}

/** Read: the account's mapped and provenance fields and its ids (and, in a chunk, its note keys). */
export async function readStep(deps: PipelineDeps, ref: AccountRef): Promise<CrmRead> {
  const fieldNames = [...new Set([...deps.mapping.fields.map((f) => f.property), ...Object.values(P)])];
  const noteKeys =
    deps.noteKeysWithRead && !(await deps.ledgers.notesComplete(ref))
      ? deps.noteKeysWithRead(ref)
      : undefined;
  // Used only if the account gets notes: unused, its failure is no failure of the job.
  noteKeys?.catch(() => {});
  const account = await deps.readAccount(ref, fieldNames);
  return { account, fieldLimits: deps.connectorFor(ref.crm, ref.tenant).fieldLimits, noteKeys };
}

/** Resolve: the buyer the account is, as a rejection, a person's review or the resolver decides. */
export async function resolveStep(
  deps: PipelineDeps,
  account: AccountSnapshot,
  options: EnrichOptions,
  ref?: AccountRef,
): Promise<MatchDecision> {
  if (options.rejected)
    return { status: 'no_match', explanation: options.rejected.reason.slice(0, 2000), candidates: [] };
  const review = options.review;
  if (review?.action === 'research') {
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
    return { ...found, explanation: researchedReason(review.actor, name, state, found.explanation) };
  }
  const pinned = review?.action === 'confirm' ? review.buyerId : (account.fields[P.buyerId] ?? null);
  const rulesFor = ref && deps.learned && !pinned ? deps.learned.bind(null, ref) : null;
  return decideWithLearned(account, rulesFor, () =>
    deps.resolver.resolve({
      id: account.id,
      name: account.name,
      state: account.state,
      ...placeOf(account),
      pinnedBuyerId: pinned,
      // The ids a person keeps on the account decide before its name (src/resolve/by-id.ts).
      ...(account.ids ? { ids: account.ids } : {}),
    }),
  );
}

/** Where the account is and its web presence, as the resolver weighs them. */
function placeOf(account: AccountSnapshot) {
  return {
    city: account.city,
    zip: account.zip ?? null,
    street: account.street ?? null,
    website: account.website,
    ...(account.emailDomains?.length ? { emailDomains: account.emailDomains } : {}),
  };
}

/** The status the result, the store and our CRM field name a decision by. */
export function statusOf(decision: MatchDecision): EnrichStatus {
  return decision.status === 'matched' ? 'enriched' : decision.status;
}
