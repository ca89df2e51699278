// The write history as pages: per account (/admin/history/:crm/:accountId) what we changed, newest first,
// by which run and from which buyer; per run (/admin/runs/:id) what it changed, counted, then its
// changes account by account. Rendered on the server, every value escaped; "Older" follows the keyset.
import { type ChangeJson, changeSource, decisionWords } from '../api/history-routes.ts';
import type { OutcomeStatus } from '../store/schema.ts';
import type { RunChanges } from '../store/write-history.ts';
import { esc } from './html.ts';
import { renderConsolePage } from './layout.ts';
import { type RunFailure, runPageScript, runProgressPanel } from './runs-page.ts';
import type { RunProgressJson } from './runs-progress.ts';

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2433}
h1{font-size:20px;margin:0 0 4px}p.summary{color:#555;margin:0 0 16px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e3e6ec;padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f5f7fa;font-weight:600}small{color:#666}code{font-size:12px}
td.change{white-space:nowrap}tr.kept td{color:#6b5900}tr.refused td{color:#a11}
.counts td{border:none;padding:2px 12px 2px 0}
a#older{display:inline-block;margin-top:12px}`;

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
const shown = (v: string | null) => (v === null ? '∅' : v.length > 120 ? `${v.slice(0, 119)}…` : v);

export const accountHistoryHref = (crm: string, accountId: string, tenant?: string, after?: string) => {
  const params = new URLSearchParams();
  if (tenant) params.set('tenant', tenant);
  if (after) params.set('after', after);
  const query = params.toString();
  return `/admin/history/${encodeURIComponent(crm)}/${encodeURIComponent(accountId)}${query ? `?${query}` : ''}`;
};
const runHref = (id: string, after?: string) =>
  `/admin/runs/${encodeURIComponent(id)}${after ? `?after=${encodeURIComponent(after)}` : ''}`;

function source(c: ChangeJson): string {
  const what = esc(changeSource(c));
  const label = c.run ? `<br><small>${esc(c.run.label)}</small>` : '';
  return c.runId ? `<a href="${esc(runHref(c.runId))}">${what}</a>${label}` : what;
}

/** One row per field or note; the change's when / run / account / buyer on its first row. */
function changeRows(c: ChangeJson, withAccount: boolean): string {
  const lines: { attrs: string; cells: string }[] = [
    ...c.fields.map((f) => {
      const cls = f.result === 'error' ? 'refused' : f.result === 'not_sent' ? 'kept' : 'written';
      const about = f.attribute
        ? `<br><small>${esc(f.attribute)}${f.policy ? ` · ${esc(f.policy)}` : ''}</small>`
        : '';
      return {
        attrs: `class="field ${cls}" data-field="${esc(f.field)}"`,
        cells: `<td><code>${esc(f.field)}</code>${about}</td><td class="change">${esc(shown(f.old))} → ${esc(shown(f.new))}</td><td>${esc(decisionWords(f))}</td>`,
      };
    }),
    ...c.notes.map((n) => ({
      attrs: `class="note ${n.action}"`,
      cells: `<td>note</td><td>${esc(n.title ?? n.dedupeKey)}</td><td>${n.action === 'removed' ? 'removed by an undo' : n.action === 'closed' ? 'closed the loop' : 'created'} <small>(${esc(n.noteId)})</small></td>`,
    })),
  ];
  const span = lines.length;
  const lead = [
    `<td rowspan="${span}"><time>${esc(when(c.at))}</time>${c.jobId ? `<br><small>job ${esc(c.jobId)}</small>` : ''}</td>`,
    `<td rowspan="${span}">${source(c)}</td>`,
    ...(withAccount
      ? [
          `<td rowspan="${span}"><a href="${esc(accountHistoryHref(c.crm, c.accountId, c.tenant))}">${esc(c.accountId)}</a><br><small>${esc(c.crm)} ${esc(c.tenant)}</small></td>`,
        ]
      : []),
    `<td rowspan="${span}">${esc(c.buyerId ?? '')}</td>`,
  ].join('');
  return lines.map((l, i) => `<tr ${l.attrs}>${i === 0 ? lead : ''}${l.cells}</tr>`).join('\n');
}

function changesTable(changes: readonly ChangeJson[], withAccount: boolean): string {
  const head = [
    'When',
    'Run',
    ...(withAccount ? ['Account'] : []),
    'Buyer',
    'Field',
    'Old → new',
    'Decision',
  ];
  const body = changes.map((c) => changeRows(c, withAccount)).join('\n');
  return `<table class="history"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead>
<tbody>
${body || `<tr><td colspan="${head.length}">Nothing recorded.</td></tr>`}
</tbody></table>`;
}

function page(title: string, summary: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} — Buyer Intel Sync</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body>
<h1>${esc(title)}</h1>
<p class="summary">${summary} · <a href="/admin/recent">recent enrichments</a> · <a href="/admin/review">review queue</a></p>
${content}
</body></html>`;
}

export interface AccountHistoryView {
  crm: string;
  tenant?: string | undefined;
  accountId: string;
  accountName?: string | null | undefined;
  changes: readonly ChangeJson[];
  next: string | null;
}

export function renderAccountHistoryPage(view: AccountHistoryView): string {
  const older = view.next
    ? `<a id="older" href="${esc(accountHistoryHref(view.crm, view.accountId, view.tenant, view.next))}">Older</a>`
    : '';
  return page(
    `History of ${view.accountName ?? view.accountId}`,
    `${esc(view.crm)}${view.tenant ? ` ${esc(view.tenant)}` : ''} · ${esc(view.accountId)} · what we wrote, what a policy kept, the notes we created`,
    `${changesTable(view.changes, false)}\n${older}`,
  );
}

export interface RunView {
  id: string;
  kind: string;
  label: string;
  actor: string | null;
  startedAt: string;
  finishedAt: string | null;
  outcomes: Record<OutcomeStatus, number>;
  writes: RunChanges;
  changes: readonly ChangeJson[];
  next: string | null;
  /** How far the run is, polled again by the page while it runs. */
  live?: { progress: RunProgressJson; failures: readonly RunFailure[] } | undefined;
  /** Offer the undo button (the console serves the undo and the run wrote something). */
  undoable?: boolean | undefined;
}

export function renderRunPage(view: RunView): string {
  const w = view.writes;
  const counts: [string, number][] = [
    ['accounts changed', w.accounts],
    ['fields written', w.fieldsWritten],
    ['refused by the CRM', w.fieldsFailed],
    ['values kept by a policy', w.fieldsSkipped],
    ['notes created', w.notesCreated],
    ['notes removed', w.notesRemoved],
    ...Object.entries(view.outcomes).map(([s, n]): [string, number] => [
      `latest outcome ${s.replace('_', ' ')}`,
      n,
    ]),
  ];
  const older = view.next ? `<a id="older" href="${esc(runHref(view.id, view.next))}">Older</a>` : '';
  const title = `Run ${view.id}: ${view.label}`;
  const summary = `${esc(view.kind)} · started ${esc(when(view.startedAt))}${view.finishedAt ? ` · queueing ended ${esc(when(view.finishedAt))}` : ''}${view.actor ? ` · by ${esc(view.actor)}` : ''}`;
  return renderConsolePage({
    title,
    active: 'runs',
    css: RUN_CSS,
    body: `<p><a href="/admin/runs">All runs</a></p><h1>${esc(title)}</h1>
<p class="summary">${summary}</p>
${view.live ? runProgressPanel(view.live.progress, view.live.failures, view.undoable === true) : ''}
<h2>What it changed</h2>
<table class="counts"><tbody>${counts.map(([k, n]) => `<tr data-count="${esc(k)}"><td>${esc(k)}</td><td>${n}</td></tr>`).join('')}</tbody></table>
<h2>Changes, newest first</h2>
<div class="scroll">${changesTable(view.changes, true)}</div>
${older}`,
    ...(view.live ? { script: runPageScript(view.id) } : {}),
  });
}

const RUN_CSS = `td.change{white-space:nowrap}tr.kept td{color:#6b5900}tr.refused td{color:#a11}
.counts{width:auto}.counts td{border:none;padding:2px 12px 2px 0}code{font-size:12px}
dialog{max-width:560px;border:1px solid #8a93a6;border-radius:6px;padding:16px 20px}dialog::backdrop{background:rgba(29,36,51,.4)}
[hidden]{display:none!important}progress{width:100%;max-width:600px;height:18px}a#older{display:inline-block;margin-top:12px}`;
