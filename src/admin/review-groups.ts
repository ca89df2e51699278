// The duplicates tab of the review page: one section per group (accounts of one tenant resolved to one
// buyer), the recommended account first and marked with why, every other one "duplicate of" it, as the
// CRM field says. A member keeps the row actions that make sense for an enriched account (reject the
// wrong one, re-search); nothing here merges or deletes a CRM record.

import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import { howMatched, whyRecommended } from '../review/duplicates.ts';
import type { Outcome } from '../store/outcomes.ts';
import type { DuplicatesGroup } from '../store/review.ts';
import { esc } from './html.ts';

export interface GroupView {
  crm: string;
  tenant: string;
  buyerId: string;
  buyerName: string | null;
  /** The recommended member first, then the others in the order they were first recorded. */
  members: Outcome[];
  recommended: Outcome | null;
  why: string | null;
}

/** The group as the review service returned it (its `recommended` is the one decision, duplicates.ts). */
export function groupViewOf(group: DuplicatesGroup & { recommended: string | null }): GroupView {
  const best = group.members.find((m) => m.accountId === group.recommended) ?? null;
  return {
    crm: group.crm,
    tenant: group.tenant,
    buyerId: group.buyerId,
    buyerName: group.members.find((m) => m.buyerName)?.buyerName ?? null,
    members: best ? [best, ...group.members.filter((m) => m !== best)] : group.members,
    recommended: best,
    why: best ? whyRecommended(best, group.members) : null,
  };
}

const nameOf = (o: Outcome): string => o.accountName ?? o.accountId;

function member(g: GroupView, o: Outcome): string {
  const data = esc(JSON.stringify({ crm: o.crm, tenant: o.tenant, accountId: o.accountId }));
  const keep = g.recommended;
  const isKeep = keep?.accountId === o.accountId;
  const mark = isKeep
    ? `<span class="badge keep">Recommended</span> <small class="why">${esc(g.why)}</small>`
    : keep
      ? `<span class="dup">duplicate of ${esc(nameOf(keep))} (${esc(keep.accountId)})</span>`
      : '';
  // The CRM field is written by the job that changed the group; until it has, say what the CRM holds.
  const wanted = isKeep || !keep ? null : keep.accountId;
  const stale =
    o.duplicateOf === wanted
      ? ''
      : `<br><small class="stale">the CRM still says ${o.duplicateOf ? `duplicate of ${esc(o.duplicateOf)}` : 'no duplicate'}</small>`;
  const reason = `wrong buyer: not ${g.buyerName ?? g.buyerId}`.slice(0, 500);
  return `<tr class="member${isKeep ? ' recommended' : ''}" data-account-id="${esc(o.accountId)}">
  <td><strong class="name">${esc(nameOf(o))}</strong><br><small>${esc(o.crm)} ${esc(o.tenant)} · ${esc(o.accountId)}${o.state ? ` · ${esc(o.state)}` : ''}</small></td>
  <td><span class="badge ${esc(o.status)}">${esc(o.status.replace('_', ' '))}</span></td>
  <td class="confidence">${o.confidence === null ? '' : esc(o.confidence.toFixed(2))}</td>
  <td class="how">${esc(howMatched(o))}</td>
  <td class="mark">${mark}${stale}</td>
  <td class="acts"><button type="button" class="reject" data-account="${data}" data-reason="${esc(reason)}">Reject</button>
    <span class="research"><input class="r-name" size="18" placeholder="name" value="${esc(o.accountName ?? '')}"><input class="r-state" size="4" placeholder="state" value="${esc(o.state ?? '')}"><button type="button" class="research" data-account="${data}">Re-search</button></span></td>
</tr>`;
}

function group(g: GroupView): string {
  return `<section class="group" data-crm="${esc(g.crm)}" data-tenant="${esc(g.tenant)}" data-buyer-id="${esc(g.buyerId)}">
<h2><span class="buyer">${esc(g.buyerName ?? g.buyerId)}</span> <small>buyer ${esc(g.buyerId)} · ${esc(g.crm)} ${esc(g.tenant)} · <span class="size">${g.members.length}</span> accounts</small></h2>
<table><thead><tr><th>Account</th><th>Status</th><th>Confidence</th><th>How matched</th><th>Recommendation</th><th></th></tr></thead>
<tbody>
${g.members.map((m) => member(g, m)).join('\n')}
</tbody></table></section>`;
}

/** The groups of one page, and "More groups" (the link to the next page) or the end of the list. */
export function renderGroups(groups: readonly GroupView[], more: string | null): string {
  return `<p class="about">Accounts of one tenant resolved to the same buyer. The recommended account has the
strongest evidence (matched by id, then confirmed by a person, then the higher confidence, then recorded
first); each other one carries <code>${PROVENANCE_FIELDS.duplicateOf}</code> = its id in the CRM. Nothing is
merged or deleted: reject or re-search the wrong one.</p>
${groups.map(group).join('\n') || '<p class="empty">No duplicates.</p>'}
<p>${more ? `<a id="more-groups" href="${esc(more)}">More groups</a>` : '<span id="end">End of groups</span>'}</p>`;
}
