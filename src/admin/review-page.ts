// The review queue as a console page: cohort tabs with counts, the filter form, one keyset page of
// compact rows (name, state, best candidate and score, reason; the other candidates and a re-search box
// expand under the row on demand), Previous/Next with "51–100 of 337", and the bulk approvals, which
// ask in an in-page <dialog> naming the count and the confidence floor. On the duplicates tab, groups
// instead (review-groups.ts). Rendered on the server, every value escaped; the buttons POST JSON to
// /admin/api/review/* (same origin), the script is review-script.ts.
import type { ReviewFilterInput } from '../review/schemas.ts';
import type { CohortCounts, Outcome } from '../store/outcomes.ts';
import { COHORTS } from '../store/schema.ts';
import { esc } from './html.ts';
import { rangeLabel, renderConsolePage } from './layout.ts';
import { type RecordUrl, recordLink } from './record-link.ts';
import { type GroupView, renderGroups } from './review-groups.ts';
import { REVIEW_SCRIPT } from './review-script.ts';

export interface ReviewView {
  /** Every filter of the query: paging, the tabs, the form and the export keep them all. */
  filter: ReviewFilterInput;
  sort: 'confidence' | 'date';
  /** Rows a page shows (the page's "Show" choice). */
  limit?: number;
  counts: CohortCounts;
  rows: Outcome[];
  /** The next page's cursor: of rows, or of groups when `groups` is given. */
  next: string | null;
  /** Rows matching the filter, and where this page starts among them ("51–100 of 337"). */
  total?: number;
  offset?: number;
  /** The cursors of the pages before this one, oldest first (Previous goes back one). */
  trail?: readonly string[];
  /** The cursor this page was read after (none: the first page). */
  after?: string | undefined;
  /** The duplicates tab: groups instead of rows (the filters do not apply to them). */
  groups?: readonly GroupView[];
  /** Each row's link to its record in its CRM. */
  recordUrl?: RecordUrl | undefined;
}

const TABS = [...COHORTS, 'duplicates'] as const;
const LABEL: Record<(typeof TABS)[number], string> = {
  matched_by_id: 'Matched by id',
  matched_by_name: 'Matched by name',
  needs_review: 'Needs review',
  no_match: 'No match',
  duplicates: 'Duplicates',
  error: 'Error',
};
const PAGE_SIZES = [10, 25, 50, 100] as const;
const DEFAULT_LIMIT = 50;

/** The filter as query parameters (dates as ISO), in one order for every link the page makes. */
function filterParams(f: ReviewFilterInput): Record<string, string | undefined> {
  return {
    cohort: f.cohort,
    crm: f.crm,
    tenant: f.tenant,
    q: f.q,
    state: f.state,
    buyerType: f.buyerType,
    minConfidence: f.minConfidence?.toString(),
    maxConfidence: f.maxConfidence?.toString(),
    since: f.since?.toISOString(),
    until: f.until?.toISOString(),
  };
}

function queryString(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') params.set(k, v);
  return params.toString();
}

/** The page's query string with some parameters changed (undefined drops one). */
function href(view: ReviewView, change: Record<string, string | undefined>): string {
  return `/admin/review?${queryString({
    ...filterParams(view.filter),
    sort: view.sort,
    limit: view.limit && view.limit !== DEFAULT_LIMIT ? String(view.limit) : undefined,
    ...change,
  })}`;
}

/** The export of what the page lists: its cohort and filter, every page of it. */
function exportHref(view: ReviewView): string {
  const query = queryString(filterParams(view.filter));
  return `/admin/export/review.csv${query ? `?${query}` : ''}`;
}

// Filters the form has no field for (set by a link, e.g. the accounts page's or a tenant's) ride along
// as hidden inputs, so pressing Filter narrows within them instead of dropping them.
const HIDDEN = ['crm', 'tenant', 'buyerType', 'maxConfidence', 'since', 'until'] as const;

const sortedCandidates = (o: Outcome) => [...o.candidates].sort((a, b) => b.score - a.score).slice(0, 5);
const place = (c: { stateCode: string | null; type: string | null }) =>
  [c.stateCode, c.type].filter(Boolean).join(', ');

function row(o: Outcome, i: number, recordUrl: RecordUrl | undefined): string {
  const data = esc(JSON.stringify({ crm: o.crm, tenant: o.tenant, accountId: o.accountId }));
  const name = o.accountName ?? o.accountId;
  const [best, ...others] = sortedCandidates(o);
  const more = `more-${i}`;
  const candidates = [best, ...others]
    .filter((c) => c !== undefined)
    .map(
      (c) =>
        `<li>${esc(c.name)} <small>(${esc(place(c))})</small> — <span class="score">${esc(c.score.toFixed(2))}</span> <button type="button" class="confirm" data-account="${data}" data-buyer="${esc(c.buyerId)}" aria-label="Confirm ${esc(c.name)} for ${esc(name)}">Confirm</button></li>`,
    )
    .join('');
  const bestCell = best
    ? `<span class="best-name">${esc(best.name)}</span> <small>(${esc(place(best))})</small> <span class="score">${esc(best.score.toFixed(2))}</span>`
    : `<span class="muted">${o.buyerName ? esc(o.buyerName) : 'no candidate'}</span>`;
  const reason = o.error ?? o.reason ?? '';
  return `<tr class="row cohort-${esc(o.cohort)}" data-account-id="${esc(o.accountId)}" data-updated="${esc(o.updatedAt.toISOString())}" data-score="${best ? esc(best.score.toFixed(2)) : ''}">
  <td><input type="checkbox" class="pick" data-account="${data}" aria-label="select ${esc(name)}"${best && o.status === 'needs_review' ? '' : ' disabled'}></td>
  <td><strong class="name">${esc(name)}</strong>${o.state ? ` <span class="state">${esc(o.state)}</span>` : ''}<br><small>${esc(o.crm)} ${esc(o.tenant)} · ${esc(o.accountId)}</small> ${recordLink(recordUrl, o)}</td>
  <td class="status"><span class="badge ${esc(o.status)}">${esc(o.status.replace('_', ' '))}</span>${o.pinned ? ' <small>pinned</small>' : ''}</td>
  <td class="best">${bestCell}</td>
  <td class="reason"><small>${esc(reason.length > 140 ? `${reason.slice(0, 139)}…` : reason)}</small></td>
  <td class="acts">${best && o.status === 'needs_review' ? `<button type="button" class="confirm top" data-account="${data}" data-buyer="${esc(best.buyerId)}" aria-label="Confirm ${esc(best.name)} for ${esc(name)}">Confirm</button> ` : ''}<button type="button" class="reject" data-account="${data}" data-reason="not a public buyer" aria-label="Reject ${esc(name)}">Reject</button>
    <button type="button" class="expand" aria-expanded="false" aria-controls="${more}">Candidates (${sortedCandidates(o).length})</button></td>
</tr>
<tr class="more" id="${more}" data-account-id="${esc(o.accountId)}" hidden><td></td><td colspan="5">
  <ol class="candidates">${candidates || '<li class="muted">No candidates.</li>'}</ol>
  <div class="research"><label>Name <input class="r-name" value="${esc(o.accountName ?? '')}"></label>
  <label>State <input class="r-state" size="6" value="${esc(o.state ?? '')}"></label>
  <button type="button" class="research" data-account="${data}">Search again</button>
  <span class="r-status" role="status"></span></div>
</td></tr>`;
}

function pager(view: ReviewView): string {
  const trail = view.trail ?? [];
  const prev =
    view.after === undefined
      ? null
      : href(view, { after: trail.at(-1), trail: trail.slice(0, -1).join('.') || undefined });
  const next = view.next
    ? href(view, {
        after: view.next,
        trail: (view.after ? [...trail, view.after] : []).join('.') || undefined,
      })
    : null;
  const range = view.total === undefined ? '' : rangeLabel(view.offset ?? 0, view.rows.length, view.total);
  return `<nav class="pager" aria-label="Pages">${prev ? `<a id="prev" rel="prev" href="${esc(prev)}">Previous</a>` : '<span class="muted">Previous</span>'}
<span id="range">${esc(range)}</span>
${next ? `<a id="next" rel="next" href="${esc(next)}">Next</a>` : '<span id="end" class="muted">End of list</span>'}</nav>`;
}

/** The filter form, the bulk actions, one page of rows and the approve dialog (every tab but duplicates). */
function rowsView(view: ReviewView): string {
  const f = view.filter;
  const limit = view.limit ?? DEFAULT_LIMIT;
  // Approve-by-floor takes the page's filter but never its cohort (the floor applies to needs_review);
  // JSON writes its dates as ISO, which the approve body's schema reads back.
  const { cohort: _cohort, ...scope } = f;
  const filterJson = esc(JSON.stringify(scope));
  const params = filterParams(f);
  const hidden = HIDDEN.map((k) =>
    params[k] === undefined ? '' : `\n<input type="hidden" name="${k}" value="${esc(params[k])}">`,
  ).join('');
  const sizes = PAGE_SIZES.map(
    (n) => `<option value="${n}"${n === limit ? ' selected' : ''}>${n}</option>`,
  ).join('');
  return `<form class="filter filters" method="get" action="/admin/review">
<input type="hidden" name="cohort" value="${esc(f.cohort ?? 'needs_review')}">${hidden}
<label>Account name<input name="q" type="search" value="${esc(f.q ?? '')}"></label>
<label>State<input name="state" size="6" value="${esc(f.state ?? '')}"></label>
<label>Min score<input name="minConfidence" type="number" min="0" max="1" step="0.01" value="${esc(f.minConfidence ?? '')}"></label>
<label>Sort<select name="sort"><option value="confidence"${view.sort === 'confidence' ? ' selected' : ''}>by confidence</option><option value="date"${view.sort === 'date' ? ' selected' : ''}>by date</option></select></label>
<label>Show<select name="limit">${sizes}</select></label>
<button type="submit" class="primary">Filter</button></form>
<div class="bulk" data-filter="${filterJson}">
<button type="button" id="approve-selected">Approve selected</button>
<label>Confidence floor <input id="floor" type="number" min="0" max="1" step="0.01" value="0.5"></label>
<button type="button" id="approve-floor">Approve all ≥ floor</button></div>
<div id="flash" role="status"></div>
<div class="scroll"><table class="review"><thead><tr><th><input type="checkbox" id="pick-all" aria-label="select all on this page"></th><th>Account</th><th>Status</th><th>Best candidate</th><th>Reason</th><th>Actions</th></tr></thead>
<tbody>
${view.rows.map((o, i) => row(o, i, view.recordUrl)).join('\n') || '<tr><td colspan="6">Nothing here.</td></tr>'}
</tbody></table></div>
${pager(view)}
<dialog id="approve-dialog" aria-labelledby="approve-title" aria-describedby="approve-what">
<form method="dialog"><h2 id="approve-title">Approve accounts</h2>
<p id="approve-what"></p><ul id="approve-sample"></ul>
<p class="dialog-actions"><button value="cancel" id="approve-cancel">Cancel</button> <button value="ok" class="primary" id="approve-ok">Approve</button></p>
</form></dialog>`;
}

const CSS = `nav.tabs{display:flex;gap:4px;margin:0 0 12px;flex-wrap:wrap}.tab{padding:4px 10px;border-radius:6px;background:#eceff3;color:#1d2433;text-decoration:none}
.tab.current{background:#1d2433;color:#fff}.count{font-weight:600}
.bulk{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:8px 0}.bulk label{font-size:13px}
table.review{table-layout:fixed}table.review th:first-child{width:36px}table.review th:nth-child(2){width:20%}
table.review th:nth-child(3){width:112px}td.status .badge{white-space:nowrap}table.review th:nth-child(4){width:22%}table.review th:last-child{width:190px}
td.acts button{margin:0 4px 4px 0}tr.more td{background:#f8f9fb}tr.more ol{margin:0 0 8px}tr.more li{margin:2px 0}
.research{display:flex;gap:8px;align-items:end;flex-wrap:wrap}.research label{display:flex;flex-direction:column;font-size:12px;color:#4a5263}
.research .r-name{width:320px;max-width:100%}.score{font-variant-numeric:tabular-nums;font-weight:600}
tr.done td{opacity:.75}dialog{border:1px solid #8a93a6;border-radius:8px;max-width:560px}dialog::backdrop{background:rgba(29,36,51,.4)}
.dialog-actions{display:flex;gap:8px;justify-content:flex-end}a.crm-link{font-size:12px;white-space:nowrap}
section.group{margin:0 0 16px;border:1px solid #dfe3ea;border-radius:6px;padding:8px}section.group h2{font-size:15px;margin:0 0 6px}
section.group table{table-layout:fixed}section.group th:first-child{width:24%}section.group th:nth-child(5){width:26%}section.group th:last-child{width:24%}
tr.recommended{background:#f1faf4}.badge.keep{background:#1d7a46;color:#fff}p.about{color:#4a5263;max-width:900px}`;

export function renderReviewPage(view: ReviewView): string {
  const tabs = TABS.map((c) => {
    const current = (view.filter.cohort ?? 'needs_review') === c;
    return `<a class="tab${current ? ' current' : ''}" data-cohort="${c}" href="${esc(href(view, { cohort: c, limit: undefined }))}"${current ? ' aria-current="true"' : ''}>${esc(LABEL[c])} <span class="count">${esc(view.counts[c])}</span></a>`;
  }).join('');
  const body = `<h1>Review queue</h1>
<p class="summary">Accounts a person decides: confirm the best candidate, pick another, reject, or search again with a better name.${view.groups ? '' : ` Export this list: <a id="export-review" href="${esc(exportHref(view))}" download>review.csv</a>`}</p>
<nav class="tabs" aria-label="Cohorts">${tabs}</nav>
${view.groups ? `<div id="flash" role="status"></div>\n${renderGroups(view.groups, view.next ? href(view, { after: view.next }) : null)}` : rowsView(view)}`;
  return renderConsolePage({ title: 'Review', active: 'review', body, css: CSS, script: REVIEW_SCRIPT });
}
