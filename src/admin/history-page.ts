// The write history as pages: per account (/admin/history/:crm/:accountId) what we changed, newest first,
// by which run and from which buyer; per run (/admin/runs/:id) what it changed, counted, then its
// changes account by account. Rendered on the server, every value escaped; "Older" follows the keyset.
import { type ChangeJson, changeSource, decisionWords, type learnedJson } from '../api/history-routes.ts';
import type { OutcomeStatus } from '../store/schema.ts';
import type { RunChanges } from '../store/write-history.ts';
import { changeWords, undoCountsWords } from './history-words.ts';
import { esc } from './html.ts';
import { readableTime, renderConsolePage } from './layout.ts';
import { type RunFailure, runPageScript, runProgressPanel } from './runs-page.ts';
import type { RunProgressJson } from './runs-progress.ts';

// Fixed columns that wrap their text: the whole table, the Decision column included, fits 1440 px and
// 1024 px; a long value or a buyer's UUID breaks inside its cell instead of widening the table.
const HISTORY_CSS = `table.history{table-layout:fixed}table.history td{overflow-wrap:anywhere}
th.when{width:128px}th.run{width:14%}th.account{width:11%}th.buyer{width:11%}th.field{width:17%}th.decision{width:18%}
tr.kept td{color:#6b5900}tr.undone td{color:#666}h2{font-size:16px;margin:16px 0 6px}tr.refused td{color:#a11}code{font-size:12px}a#older{display:inline-block;margin-top:12px}`;

export const accountHistoryHref = (crm: string, accountId: string, tenant?: string, after?: string) => {
  const params = new URLSearchParams();
  if (tenant) params.set('tenant', tenant);
  if (after) params.set('after', after);
  const query = params.toString();
  return `/admin/history/${encodeURIComponent(crm)}/${encodeURIComponent(accountId)}${query ? `?${query}` : ''}`;
};
const historyExportHref = (q: Record<string, string>) =>
  `/admin/export/history.csv?${new URLSearchParams(q).toString()}`;
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
        cells: `<td><code>${esc(f.field)}</code>${about}</td><td class="change">${esc(changeWords(f))}</td><td>${esc(decisionWords(f))}</td>`,
      };
    }),
    ...c.notes.map((n) => ({
      attrs: `class="note ${n.action}"`,
      cells: `<td>note</td><td>${esc(n.title ?? n.dedupeKey)}</td><td>${n.action === 'removed' ? 'removed by an undo' : n.action === 'closed' ? 'closed the loop' : 'created'} <small>(${esc(n.noteId)})</small></td>`,
    })),
  ];
  const span = lines.length;
  const lead = [
    `<td rowspan="${span}">${readableTime(c.at)}${c.jobId ? `<br><small>job ${esc(c.jobId)}</small>` : ''}</td>`,
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
  const head: [string, string][] = [
    ['when', 'When'],
    ['run', 'Run'],
    ...(withAccount ? ([['account', 'Account']] as [string, string][]) : []),
    ['buyer', 'Buyer'],
    ['field', 'Field'],
    ['change', 'Change'],
    ['decision', 'Decision'],
  ];
  const body = changes.map((c) => changeRows(c, withAccount)).join('\n');
  return `<div class="scroll"><table class="history"><thead><tr>${head.map(([k, h]) => `<th class="${k}">${h}</th>`).join('')}</tr></thead>
<tbody>
${body || `<tr><td colspan="${head.length}">Nothing recorded.</td></tr>`}
</tbody></table></div>`;
}

export interface AccountHistoryView {
  crm: string;
  tenant?: string | undefined;
  accountId: string;
  accountName?: string | null | undefined;
  changes: readonly ChangeJson[];
  next: string | null;
  /** The rules this account's decisions taught its tenant (docs/matching.md, learning). */
  learned?: readonly ReturnType<typeof learnedJson>[] | undefined;
}

/** What a person's decisions on the account taught: each rule in words, and whether it still holds. */
function learnedTable(rules: readonly ReturnType<typeof learnedJson>[]): string {
  if (!rules.length) return '';
  const rows = rules
    .map(
      (r) =>
        `<tr class="learned ${r.undoneAt ? 'undone' : 'live'}" data-verdict="${esc(r.verdict)}"><td>${readableTime(r.at)}</td><td>${esc(r.rule)}</td><td>${r.undoneAt ? `taken back ${readableTime(r.undoneAt)}` : 'holds for the next account typed this way'}</td></tr>`,
    )
    .join('\n');
  return `<h2>What a person's decisions taught</h2>
<table class="learned"><thead><tr><th>When</th><th>Rule</th><th>Now</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>What we changed</h2>`;
}

export function renderAccountHistoryPage(view: AccountHistoryView): string {
  const older = view.next
    ? `<a id="older" href="${esc(accountHistoryHref(view.crm, view.accountId, view.tenant, view.next))}">Older</a>`
    : '';
  const title = `History of ${view.accountName ?? view.accountId}`;
  return renderConsolePage({
    title,
    active: 'accounts',
    css: HISTORY_CSS,
    body: `<p><a href="/admin/accounts">All accounts</a> · <a href="/admin/review">Review queue</a></p><h1>${esc(title)}</h1>
<p class="summary">${esc(view.crm)}${view.tenant ? ` ${esc(view.tenant)}` : ''} · ${esc(view.accountId)} · what we wrote, what a policy kept, the notes we created, newest first · <a id="export-history" href="${esc(historyExportHref({ crm: view.crm, accountId: view.accountId, ...(view.tenant ? { tenant: view.tenant } : {}) }))}" download>history.csv</a></p>
${learnedTable(view.learned ?? [])}${changesTable(view.changes, false)}
${older}`,
  });
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
  /** The run's own counts (an undo's: accounts done, fields put back, kept, notes removed…). */
  counts?: Record<string, number> | undefined;
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
  const summary = `${esc(view.kind)} · started ${readableTime(view.startedAt)}${view.finishedAt ? ` · queueing ended ${readableTime(view.finishedAt)}` : ''}${view.actor ? ` · by ${esc(view.actor)}` : ''}`;
  // Run kinds, not CRMs: an undo's counts are its own (src/undo/record.ts), said in words.
  const undone =
    view.kind === 'undo' && view.counts
      ? `<h2>What the undo did</h2>\n<ul id="undo-counts">${undoCountsWords(view.counts)
          .map((line) => `<li>${esc(line)}</li>`)
          .join('')}</ul>`
      : '';
  return renderConsolePage({
    title,
    active: 'runs',
    css: RUN_CSS,
    body: `<p><a href="/admin/runs">All runs</a></p><h1>${esc(title)}</h1>
<p class="summary">${summary} · <a id="export-history" href="${esc(historyExportHref({ run: view.id }))}" download>history.csv</a></p>
${view.live ? runProgressPanel(view.live.progress, view.live.failures, view.undoable === true) : ''}
${undone}
<h2>What it changed</h2>
<table class="counts"><tbody>${counts.map(([k, n]) => `<tr data-count="${esc(k)}"><td>${esc(k)}</td><td>${n}</td></tr>`).join('')}</tbody></table>
<h2>Changes, newest first</h2>
${changesTable(view.changes, true)}
${older}`,
    ...(view.live ? { script: runPageScript(view.id) } : {}),
  });
}

const RUN_CSS = `${HISTORY_CSS}
.counts{width:auto}.counts td{border:none;padding:2px 12px 2px 0}
dialog{max-width:560px;border:1px solid #8a93a6;border-radius:6px;padding:16px 20px}dialog::backdrop{background:rgba(29,36,51,.4)}
[hidden]{display:none!important}progress{width:100%;max-width:600px;height:18px}`;
