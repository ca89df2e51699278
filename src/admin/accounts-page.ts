// /admin/accounts: every account in the system of record, searched by name and filtered, 50 a page
// with a keyset cursor and an index-backed total ("51–100 of 337"), each row linking to its history.
import type { Outcome } from '../store/outcomes.ts';
import { esc } from './html.ts';
import { rangeLabel, readableTime, renderConsolePage } from './layout.ts';
import { type RecordUrl, recordLink } from './record-link.ts';

export interface AccountsFilterView {
  q?: string | undefined;
  cohort?: string | undefined;
  crm?: string | undefined;
  tenant?: string | undefined;
  buyerType?: string | undefined;
  state?: string | undefined;
  minConfidence?: number | undefined;
}

const COHORT_LABELS: Record<string, string> = {
  matched_by_id: 'Matched by id',
  matched_by_name: 'Matched by name',
  needs_review: 'Needs review',
  no_match: 'No match',
  error: 'Error',
};

export function filterQuery(f: AccountsFilterView, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') params.set(k, String(v));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : '';
}

const historyHref = (o: Outcome) =>
  `/admin/history/${encodeURIComponent(o.crm)}/${encodeURIComponent(o.accountId)}?tenant=${encodeURIComponent(o.tenant)}`;

function row(o: Outcome, recordUrl: RecordUrl | undefined): string {
  const ref = esc(JSON.stringify({ crm: o.crm, tenant: o.tenant, accountId: o.accountId }));
  return `<tr class="account">
<td><strong class="name">${esc(o.accountName ?? o.accountId)}</strong><br><small>${esc(o.crm)} ${esc(o.tenant)} · ${esc(o.accountId)}</small></td>
<td><span class="badge ${esc(o.status)}">${esc(COHORT_LABELS[o.cohort] ?? o.cohort)}</span>${o.error ? `<br><small>${esc(o.error)}</small>` : ''}</td>
<td class="buyer">${esc(o.buyerName ?? '')}${o.buyerType ? `<br><small>${esc(o.buyerType)}</small>` : ''}</td>
<td>${esc(o.state ?? '')}</td>
<td class="num">${o.confidence === null ? '' : esc(o.confidence.toFixed(2))}</td>
<td>${readableTime(o.updatedAt)}</td>
<td><a class="history" href="${esc(historyHref(o))}">History</a> ${recordLink(recordUrl, o)} <button class="retry" data-account="${ref}">Retry</button></td>
</tr>`;
}

function field(name: string, label: string, value: unknown): string {
  return `<label>${esc(label)}<input name="${esc(name)}" value="${esc(value ?? '')}"></label>`;
}

export function renderAccountsPage(view: {
  filter: AccountsFilterView;
  rows: Outcome[];
  total: number;
  offset: number;
  next: string | null;
  prev: string | null;
  recordUrl?: RecordUrl | undefined;
}): string {
  const f = view.filter;
  const cohorts = ['', ...Object.keys(COHORT_LABELS)]
    .map(
      (c) =>
        `<option value="${esc(c)}"${c === (f.cohort ?? '') ? ' selected' : ''}>${esc(COHORT_LABELS[c] ?? 'Any')}</option>`,
    )
    .join('');
  const pager = [
    view.prev !== null
      ? `<a rel="prev" href="${esc(view.prev)}">Previous</a>`
      : '<span class="muted">Previous</span>',
    `<span class="range">${esc(rangeLabel(view.offset, view.rows.length, view.total))}</span>`,
    view.next !== null
      ? `<a rel="next" href="${esc(view.next)}">Next</a>`
      : '<span class="muted">Next</span>',
  ].join('');
  const body = `<h1>Accounts</h1>
<form class="filters" method="get" action="/admin/accounts">
${field('q', 'Name', f.q)}
<label>Status<select name="cohort">${cohorts}</select></label>
${field('crm', 'CRM', f.crm)}${field('tenant', 'Tenant', f.tenant)}${field('buyerType', 'Buyer type', f.buyerType)}${field('state', 'State', f.state)}${field('minConfidence', 'Min confidence', f.minConfidence)}
<button class="primary" type="submit">Search</button>
</form>
<p class="summary">Export: <a href="/admin/export/accounts.csv${esc(filterQuery(f))}">accounts.csv</a></p>
<div id="flash" role="status"></div>
<div class="scroll"><table><thead><tr><th>Account</th><th>Status</th><th>Buyer</th><th>State</th><th class="num">Confidence</th><th>Updated</th><th>Actions</th></tr></thead>
<tbody>${view.rows.map((o) => row(o, view.recordUrl)).join('\n') || '<tr><td colspan="7">No accounts match.</td></tr>'}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pager}</nav>`;
  const script = `document.addEventListener('click', async (e) => {
  const b = e.target.closest('button.retry');
  if (!b) return;
  const res = await fetch('/admin/api/retry', { method: 'POST', headers: { 'content-type': 'application/json' }, body: b.dataset.account });
  const json = await res.json();
  document.getElementById('flash').textContent = res.ok ? 'Queued job ' + json.jobId : (json.message || 'failed');
});`;
  return renderConsolePage({ title: 'Accounts', active: 'accounts', body, script });
}
