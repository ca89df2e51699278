// The review queue as a page: cohort tabs with counts, the filter form, one keyset page of rows, and the
// decisions (confirm, reject, re-search, approve selected / approve all shown above a floor); on the
// duplicates tab, one keyset page of groups instead (review-groups.ts). Rendered on the server, every
// value escaped; the buttons POST JSON to /admin/api/review/* (same origin).
import type { ReviewFilterInput } from '../review/schemas.ts';
import type { CohortCounts, Outcome } from '../store/outcomes.ts';
import { COHORTS } from '../store/schema.ts';
import { esc } from './html.ts';
import { type GroupView, renderGroups } from './review-groups.ts';

export interface ReviewView {
  filter: Pick<ReviewFilterInput, 'cohort' | 'q' | 'state' | 'minConfidence'>;
  sort: 'confidence' | 'date';
  counts: CohortCounts;
  rows: Outcome[];
  /** The next page's cursor: of rows, or of groups when `groups` is given. */
  next: string | null;
  /** The duplicates tab: groups instead of rows (the filters do not apply to them). */
  groups?: readonly GroupView[];
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

/** The page's query string with some parameters changed (undefined drops one). */
function href(view: ReviewView, change: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  const base: Record<string, string | undefined> = {
    cohort: view.filter.cohort,
    q: view.filter.q,
    state: view.filter.state,
    minConfidence: view.filter.minConfidence?.toString(),
    sort: view.sort,
    ...change,
  };
  for (const [k, v] of Object.entries(base)) if (v !== undefined && v !== '') params.set(k, v);
  return `/admin/review?${params.toString()}`;
}

function row(o: Outcome): string {
  const data = esc(JSON.stringify({ crm: o.crm, tenant: o.tenant, accountId: o.accountId }));
  const candidates = [...o.candidates]
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .map(
      (c) =>
        `<li>${esc(c.name)} (${esc([c.stateCode, c.type].filter(Boolean).join(', '))}) — ${esc(c.score.toFixed(2))} <button type="button" class="confirm" data-account="${data}" data-buyer="${esc(c.buyerId)}">Confirm</button></li>`,
    )
    .join('');
  return `<tr class="row cohort-${esc(o.cohort)}" data-account-id="${esc(o.accountId)}">
  <td><input type="checkbox" class="pick" data-account="${data}" aria-label="select ${esc(o.accountName ?? o.accountId)}"></td>
  <td><strong class="name">${esc(o.accountName ?? o.accountId)}</strong><br><small>${esc(o.crm)} ${esc(o.tenant)} · ${esc(o.accountId)}${o.state ? ` · ${esc(o.state)}` : ''}</small></td>
  <td><span class="badge ${esc(o.status)}">${esc(o.status.replace('_', ' '))}</span>${o.pinned ? ' <small>pinned</small>' : ''}${o.duplicateOf ? `<br><small>duplicate of ${esc(o.duplicateOf)}</small>` : ''}</td>
  <td>${o.confidence === null ? '' : esc(o.confidence.toFixed(2))}</td>
  <td><small>${esc(o.error ?? o.reason ?? '')}</small>${o.buyerName ? `<br>${esc(o.buyerName)}` : ''}</td>
  <td>${candidates ? `<ol class="candidates">${candidates}</ol>` : ''}</td>
  <td class="acts"><button type="button" class="reject" data-account="${data}" data-reason="not a public buyer">Reject</button>
    <span class="research"><input class="r-name" size="18" placeholder="name" value="${esc(o.accountName ?? '')}"><input class="r-state" size="4" placeholder="state" value="${esc(o.state ?? '')}"><button type="button" class="research" data-account="${data}">Re-search</button></span></td>
</tr>`;
}

/** The filter form, the bulk actions and one page of rows (every tab but duplicates). */
function rowsView(view: ReviewView): string {
  const f = view.filter;
  const filterJson = esc(
    JSON.stringify({
      ...(f.q ? { q: f.q } : {}),
      ...(f.state ? { state: f.state } : {}),
      ...(f.minConfidence !== undefined ? { minConfidence: f.minConfidence } : {}),
    }),
  );
  return `<form class="filter" method="get" action="/admin/review">
<input type="hidden" name="cohort" value="${esc(f.cohort ?? 'needs_review')}">
<input name="q" type="search" placeholder="account name" value="${esc(f.q ?? '')}">
<input name="state" size="6" placeholder="state" value="${esc(f.state ?? '')}">
<input name="minConfidence" type="number" min="0" max="1" step="0.01" placeholder="min score" value="${esc(f.minConfidence ?? '')}">
<select name="sort"><option value="confidence"${view.sort === 'confidence' ? ' selected' : ''}>by confidence</option><option value="date"${view.sort === 'date' ? ' selected' : ''}>by date</option></select>
<button type="submit">Filter</button></form>
<div class="bulk" data-filter="${filterJson}">
<button type="button" id="approve-selected">Approve selected</button>
<label>floor <input id="floor" type="number" min="0" max="1" step="0.01" value="0.5"></label>
<button type="button" id="approve-floor">Approve all shown ≥ floor</button></div>
<div id="flash" role="status"></div>
<table><thead><tr><th><input type="checkbox" id="pick-all" aria-label="select all"></th><th>Account</th><th>Status</th><th>Confidence</th><th>Reason</th><th>Top candidates</th><th></th></tr></thead>
<tbody>
${view.rows.map(row).join('\n') || '<tr><td colspan="7">Nothing here.</td></tr>'}
</tbody></table>
<p>${view.next ? `<a id="next" href="${esc(href(view, { after: view.next }))}">Next</a>` : '<span id="end">End of list</span>'}</p>`;
}

export function renderReviewPage(view: ReviewView): string {
  const tabs = TABS.map((c) => {
    const current = (view.filter.cohort ?? 'needs_review') === c;
    return `<a class="tab${current ? ' current' : ''}" data-cohort="${c}" href="${esc(href(view, { cohort: c }))}">${esc(LABEL[c])} <span class="count">${esc(view.counts[c])}</span></a>`;
  }).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Buyer Intel Sync — review</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2433}h1{font-size:20px;margin:0 0 8px}
nav.tabs{display:flex;gap:4px;margin:0 0 12px;flex-wrap:wrap}.tab{padding:4px 10px;border-radius:6px;background:#eceff3;color:#1d2433;text-decoration:none}
.tab.current{background:#1d2433;color:#fff}.count{font-weight:600}form.filter{margin:0 0 12px}form.filter input,form.filter select{margin-right:8px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e3e6ec;padding:6px;vertical-align:top;text-align:left}
th{background:#f5f7fa}ol{margin:2px 0;padding-left:18px}small{color:#666}button{cursor:pointer;font-size:12px;margin-left:4px}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;background:#e3e6ec}.badge.enriched{background:#d9f2e3}.badge.needs_review{background:#fff1c2}.badge.no_match{background:#eceff3}
.bulk{margin:8px 0}#flash{min-height:20px;color:#0a6b2b}
section.group{margin:0 0 16px;border:1px solid #e3e6ec;border-radius:6px;padding:8px}section.group h2{font-size:15px;margin:0 0 6px}
section.group table{table-layout:fixed}section.group th:first-child{width:24%}section.group th:nth-child(5){width:26%}section.group th:last-child{width:24%}
tr.recommended{background:#f1faf4}.badge.keep{background:#1d7a46;color:#fff}p.about{color:#555;max-width:900px}
</style></head>
<body>
<h1>Review queue</h1><p><a href="/admin">recent enrichments</a> · <a href="/admin/queues">queues</a></p>
<nav class="tabs">${tabs}</nav>
${view.groups ? `<div id="flash" role="status"></div>\n${renderGroups(view.groups, view.next ? href(view, { after: view.next }) : null)}` : rowsView(view)}
<script>
const flash = (t) => { document.getElementById('flash').textContent = t; };
async function post(path, body) {
  const res = await fetch('/admin/api/review/' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) { flash(json.message || 'failed'); return null; }
  return json;
}
const picked = () => [...document.querySelectorAll('input.pick:checked')].map((c) => JSON.parse(c.dataset.account));
// The duplicates tab has no selection or bulk actions.
document.getElementById('pick-all')?.addEventListener('change', (e) => {
  for (const c of document.querySelectorAll('input.pick')) c.checked = e.target.checked;
});
document.getElementById('approve-selected')?.addEventListener('click', async () => {
  const accounts = picked();
  if (!accounts.length) return flash('Select accounts first');
  const r = await post('approve', { accounts });
  if (r) flash('Approved ' + r.approved + ' accounts (run ' + r.runId + ')');
});
document.getElementById('approve-floor')?.addEventListener('click', async () => {
  const filter = JSON.parse(document.querySelector('.bulk').dataset.filter);
  const floor = Number(document.getElementById('floor').value);
  const p = await post('approve', { filter, floor, preview: true });
  if (!p) return;
  if (!confirm('approve ' + p.count + ' accounts?')) return flash('Nothing approved');
  const r = await post('approve', { filter, floor });
  if (r) flash('Approved ' + r.approved + ' accounts (run ' + r.runId + ')');
});
// Every row's buttons (one table of rows, or one table per duplicates group).
document.addEventListener('click', async (e) => {
  const b = e.target.closest('tbody button[data-account]');
  if (!b) return;
  const account = JSON.parse(b.dataset.account);
  let r = null;
  if (b.classList.contains('confirm')) r = await post('confirm', { ...account, buyerId: b.dataset.buyer });
  if (b.classList.contains('reject')) r = await post('reject', { ...account, reason: b.dataset.reason });
  if (b.classList.contains('research')) {
    const cell = b.closest('span');
    const name = cell.querySelector('.r-name').value.trim(), state = cell.querySelector('.r-state').value.trim();
    r = await post('research', { ...account, ...(name ? { name } : {}), ...(state ? { state } : {}) });
  }
  if (r) flash('Queued job ' + r.jobId);
});
</script>
</body></html>`;
}
