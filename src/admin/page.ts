// The admin page: recent enrichments per CRM account, the ones that need a person first, under a notice
// of any tenant whose credentials lack a permission a call needed. Rendered on
// the server (every value escaped) with a few lines of script for the Confirm and Retry buttons, which
// POST JSON to /admin/api (same origin, behind the same basic auth as Bull Board).

import type { PermissionRefusal } from '../../connectors/permission-refusals.ts';
import { crmOf } from '../../connectors/registry.ts';
import type { AccountRef } from '../../connectors/types.ts';
import type { HistoryEntry } from '../store/history.ts';
import { accountHistoryHref } from './history-page.ts';
import { esc } from './html.ts';

export interface AdminRow {
  account: AccountRef;
  entry: HistoryEntry;
}

export function statusOf(entry: HistoryEntry): string {
  return entry.error ? 'error' : (entry.result?.status ?? 'unknown');
}

const RANK: Record<string, number> = { needs_review: 0, error: 1, no_match: 2, enriched: 3 };

/** Needs review first, then failures, then the rest; newest first within each. */
export function sortRows(rows: AdminRow[]): AdminRow[] {
  return [...rows].sort(
    (a, b) =>
      (RANK[statusOf(a.entry)] ?? 9) - (RANK[statusOf(b.entry)] ?? 9) || b.entry.at.localeCompare(a.entry.at),
  );
}

function row({ account, entry }: AdminRow): string {
  const status = statusOf(entry);
  const r = entry.result;
  const ref = { crm: account.crm, tenant: account.tenant, accountId: account.accountId };
  const data = esc(JSON.stringify(ref));
  const fields = (r?.fields ?? [])
    .filter((f) => f.decision === 'write')
    .map((f) => `<li><code>${esc(f.property)}</code> ${esc(f.old ?? '∅')} → ${esc(f.new ?? '∅')}</li>`)
    .join('');
  const notes = (r?.notes.created ?? []).map((n) => `<li>${esc(n.title)}</li>`).join('');
  const candidates =
    status === 'needs_review'
      ? `<ol class="candidates">${(r?.match.candidates ?? [])
          .map(
            (c) =>
              `<li>${esc(c.name)} (${esc([c.stateCode, c.type].filter(Boolean).join(', '))}) — ${esc(c.score.toFixed(2))} <button class="confirm" data-account="${data}" data-buyer="${esc(c.buyerId)}">Confirm</button></li>`,
          )
          .join('')}</ol>`
      : '';
  return `<tr class="row status-${esc(status)}">
  <td><strong>${esc(r?.account.name ?? account.accountId)}</strong><br><small>${esc(account.crm)} ${esc(account.tenant)} · ${esc(account.accountId)}</small></td>
  <td><span class="badge ${esc(status)}">${esc(status.replace('_', ' '))}</span>${entry.error ? `<br><small class="reason">${esc(entry.error)}</small>` : ''}</td>
  <td>${esc(r?.match.buyerName ?? '')}${r?.match.buyerId ? `<br><small>${esc(r.match.buyerId)}</small>` : ''}${candidates}</td>
  <td>${r?.match.confidence ?? ''}</td>
  <td>${fields ? `<ul>${fields}</ul>` : ''}</td>
  <td>${notes ? `<ul>${notes}</ul>` : ''}</td>
  <td><time>${esc(entry.at)}</time><br><button class="retry" data-account="${data}">Retry</button> <a class="history" href="${esc(accountHistoryHref(account.crm, account.accountId, account.tenant))}">History</a></td>
</tr>`;
}

/** Each tenant whose calls were refused for a permission its credentials lack (a day's worth). */
function refusalNotice(refusals: readonly PermissionRefusal[]): string {
  if (!refusals.length) return '';
  const items = refusals.map((r) => {
    const crm = crmOf(r.crm);
    return `<li><strong>${esc(crm.label)} ${esc(crm.tenantNoun)} ${esc(r.tenant)}</strong> lacks <code>${esc(r.missing.join(' or '))}</code> — ${esc(r.operation)} was refused <time>${esc(new Date(r.at).toISOString())}</time>. Grant it (install the app again, or add it to the credentials' settings); docs/crm-setup.md lists what each feature needs.</li>`;
  });
  return `<section class="refusals" role="alert"><h2>Connections missing a permission</h2><ul>${items.join('')}</ul></section>`;
}

export function renderAdminPage(rows: AdminRow[], refusals: readonly PermissionRefusal[] = []): string {
  const sorted = sortRows(rows);
  const review = sorted.filter((r) => statusOf(r.entry) === 'needs_review').length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Buyer Intel Sync — enrichments</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2433}
h1{font-size:20px;margin:0 0 4px}p.summary{color:#555;margin:0 0 16px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e3e6ec;padding:8px;vertical-align:top;text-align:left}
th{background:#f5f7fa;font-weight:600}ul,ol{margin:4px 0;padding-left:18px}small{color:#666}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;background:#e3e6ec}
.badge.enriched{background:#d9f2e3}.badge.needs_review{background:#fff1c2}.badge.error{background:#fbd9d9}.badge.no_match{background:#eceff3}
tr.status-needs_review{background:#fffbea}button{cursor:pointer;font-size:12px;margin-left:4px}
#flash{min-height:20px;color:#0a6b2b}
.refusals{border:1px solid #e0a3a3;background:#fdf1f1;border-radius:6px;padding:8px 12px;margin:0 0 16px}.refusals h2{font-size:15px;margin:0}
</style></head>
<body>
<h1>Recent enrichments</h1>
<p class="summary">${sorted.length} accounts · ${review} need review · <a href="/admin/accounts">all accounts</a> · <a href="/admin/review">review queue</a> · <a href="/admin/queues">queues</a></p>
${refusalNotice(refusals)}
<div id="flash" role="status"></div>
<table><thead><tr><th>Account</th><th>Status</th><th>Buyer</th><th>Confidence</th><th>Fields written (old → new)</th><th>Notes</th><th>When</th></tr></thead>
<tbody>
${sorted.map(row).join('\n') || '<tr><td colspan="7">No enrichments yet.</td></tr>'}
</tbody></table>
<script>
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  document.getElementById('flash').textContent = res.ok ? 'Queued job ' + json.jobId : (json.message || 'failed');
}
document.addEventListener('click', (e) => {
  const b = e.target.closest('button');
  if (!b) return;
  const account = JSON.parse(b.dataset.account);
  if (b.classList.contains('confirm')) post('/admin/api/confirm', { ...account, buyerId: b.dataset.buyer });
  if (b.classList.contains('retry')) post('/admin/api/retry', account);
});
</script>
</body></html>`;
}
