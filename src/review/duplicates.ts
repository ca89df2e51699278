// Duplicates groups: accounts of one tenant resolved to one buyer. The recommended account is the one
// with the strongest evidence — matched by a buyer id on the account, then confirmed by a person, then
// the higher confidence, then the older record (the lower outcome id) — and every other member gets
// `buyer_intel_duplicate_of` = the recommended account's CRM id. Nothing is merged or deleted.
import type { AccountRef, AccountUpdate, CrmKind, UpdateResult } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import type { Outcome } from '../store/outcomes.ts';
import type { ReviewRecords } from '../store/review.ts';
import type { WriteContext, WriteOrigin } from '../write/journal.ts';

type Member = Pick<Outcome, 'accountId' | 'matchedBy' | 'reason' | 'confidence' | 'id'>;

const confirmedByPerson = (m: Pick<Member, 'reason'>): boolean =>
  m.reason?.startsWith('Confirmed by ') ?? false;

/** How strong a member's evidence is, as a tuple compared left to right (higher wins). */
function evidence(m: Member): [number, number, number] {
  const confirmed = confirmedByPerson(m);
  const byId = m.matchedBy === 'id' && !confirmed;
  return [byId ? 2 : confirmed ? 1 : 0, m.confidence ?? -1, -Number(m.id)];
}

/** How the member's buyer was found, in the terms of the evidence ranking. */
export function howMatched(m: Pick<Member, 'matchedBy' | 'reason'>): string {
  if (confirmedByPerson(m)) return 'confirmed by a person';
  if (m.matchedBy === 'id') return 'matched by id';
  return m.matchedBy === 'name' ? 'matched by name' : 'not matched';
}

/** Why `best` is the recommended member: its evidence, and what set it above the runner-up. */
export function whyRecommended<M extends Member>(best: M, members: readonly M[]): string {
  const confidence = best.confidence === null ? 'no confidence' : `confidence ${best.confidence.toFixed(2)}`;
  const what = `${howMatched(best)}, ${confidence}`;
  const runnerUp = recommendedOf(members.filter((m) => m !== best));
  if (!runnerUp) return `strongest evidence: ${what}`;
  const [a, b] = [evidence(best), evidence(runnerUp)];
  const decided = a.findIndex((v, k) => v !== b[k]);
  if (decided === 0) return `strongest evidence: ${what}`;
  if (decided === 1) return `strongest evidence: ${what} (the highest)`;
  return `equal evidence (${what}); recorded first`;
}

export function recommendedOf<M extends Member>(members: readonly M[]): M | undefined {
  let best: M | undefined;
  for (const m of members) {
    if (!best) {
      best = m;
      continue;
    }
    const [a, b] = [evidence(m), evidence(best)];
    const i = a.findIndex((v, k) => v !== b[k]);
    if (i >= 0 && (a[i] ?? 0) > (b[i] ?? 0)) best = m;
  }
  return best;
}

/** The mark each member should carry: null for the recommended one and for an account alone. */
export function marksOf(members: readonly Outcome[]): Map<string, string | null> {
  const byBuyer = new Map<string, Outcome[]>();
  const marks = new Map<string, string | null>();
  for (const m of members) {
    marks.set(m.accountId, null);
    if (m.buyerId) byBuyer.set(m.buyerId, [...(byBuyer.get(m.buyerId) ?? []), m]);
  }
  for (const group of byBuyer.values()) {
    if (group.length < 2) continue;
    const best = recommendedOf(group);
    for (const m of group) if (best && m !== best) marks.set(m.accountId, best.accountId);
  }
  return marks;
}

export interface DuplicatesDeps {
  review: ReviewRecords;
  writeAccount: (
    crm: CrmKind,
    tenant: string,
    update: AccountUpdate,
    context?: WriteContext,
  ) => Promise<UpdateResult>;
}

/** One account whose outcome changed, and the buyers whose groups it may have changed. */
export interface ReconcileRequest {
  accountId: string;
  buyerIds: readonly (string | null | undefined)[];
  formerGroups?: boolean | undefined;
}

/**
 * After an account's outcome changed: recomputes the groups of its old and new buyer and writes the
 * mark of every member whose mark changed (one CRM write each, batched by the writer), then remembers
 * the marks. Called only when the account is or was in a group, so other jobs pay nothing. With
 * `formerGroups` (a rejection, which erased the old buyer before the job read it), also the groups
 * whose members are marked duplicates of the account: they get another recommended account.
 */
export async function reconcileDuplicates(
  deps: DuplicatesDeps,
  key: AccountRef & { crm: CrmKind },
  buyerIds: readonly (string | null | undefined)[],
  options: { formerGroups?: boolean; origin?: WriteOrigin | undefined } = {},
): Promise<number> {
  const { written, failures } = await reconcileDuplicatesOf(
    deps,
    key.crm,
    key.tenant,
    [{ accountId: key.accountId, buyerIds, formerGroups: options.formerGroups }],
    { origin: options.origin },
  );
  const failed = failures.get(key.accountId);
  if (failed) throw new Error(`marking a duplicate failed: ${failed}`);
  return written;
}

/**
 * `reconcileDuplicates` for several accounts of one tenant at once (a backfill chunk's): one read of
 * every member of their groups, each changed mark written once (the writes leave together, so in one
 * CRM batch), one statement remembering the marks. The groups are computed over all the members read,
 * as each account alone would compute its own. Resolves with the marks written and, per account, why a
 * mark of one of its groups could not be written (the account's job fails as it would alone).
 */
export async function reconcileDuplicatesOf(
  deps: DuplicatesDeps,
  crm: CrmKind,
  tenant: string,
  requests: readonly ReconcileRequest[],
  options: { origin?: WriteOrigin | undefined } = {},
): Promise<{ written: number; failures: Map<string, string> }> {
  const idsOf = (r: ReconcileRequest) => r.buyerIds.filter((b): b is string => Boolean(b));
  const members = await deps.review.membersOfMany(crm, tenant, {
    accountIds: requests.map((r) => r.accountId),
    buyerIds: [...new Set(requests.flatMap(idsOf))],
    formerGroupsOf: requests.filter((r) => r.formerGroups).map((r) => r.accountId),
  });
  const wanted = marksOf(members);
  const changed = members.filter((m) => (wanted.get(m.accountId) ?? null) !== m.duplicateOf);
  const results = await Promise.all(
    changed.map((m) =>
      deps.writeAccount(
        crm,
        tenant,
        {
          accountId: m.accountId,
          fields: { [PROVENANCE_FIELDS.duplicateOf]: wanted.get(m.accountId) ?? null },
        },
        {
          ...options.origin,
          buyerId: m.buyerId,
          fields: {
            [PROVENANCE_FIELDS.duplicateOf]: {
              old: m.duplicateOf,
              decision: 'duplicate-mark',
              kind: 'provenance',
            },
          },
        },
      ),
    ),
  );
  const written = changed.filter((_, i) => results[i]?.ok);
  if (written.length)
    await deps.review.markDuplicates(
      crm,
      tenant,
      written.map((m) => ({ accountId: m.accountId, duplicateOf: wanted.get(m.accountId) ?? null })),
    );
  const failures = new Map<string, string>();
  changed.forEach((m, i) => {
    const result = results[i];
    if (!result || result.ok) return;
    for (const r of requests)
      if (!failures.has(r.accountId) && concerns(r, m, members))
        failures.set(r.accountId, result.error.message);
  });
  return { written: written.length, failures };
}

/** Whether the member is in one of the groups the request asked for (as `members` reads them). */
function concerns(r: ReconcileRequest, m: Outcome, members: readonly Outcome[]): boolean {
  if (m.accountId === r.accountId) return true;
  if (!m.buyerId) return false;
  if (r.buyerIds.includes(m.buyerId)) return true;
  return (
    Boolean(r.formerGroups) && members.some((o) => o.duplicateOf === r.accountId && o.buyerId === m.buyerId)
  );
}
