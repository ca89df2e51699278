// /admin/mapping: the mapping and match thresholds in force as a form a sales-ops lead edits instead of a YAML file — each
// provider attribute, the field it lands in (under each connected CRM's own name: HubSpot's
// `buyer_intel_type`, Salesforce's `BuyerIntel_Type__c`), its transform and its write policy; rows
// added or removed. A change is previewed on recent accounts (mapping-preview-view.ts) before it can be
// saved as the next version; the versions below it say who changed what, and any of them is restored
// by a revert. The page's script only gathers the form and places the server's answers: every rule is
// the mapping file's schema, applied by the server.
import { BUYER_FIELDS } from '../buyer-intel/fields.ts';
import { type Mapping, type MappingField, TRANSFORMS, WRITE_POLICIES } from '../map/mapping-schema.ts';
import type { ActiveVersion } from '../mapping-versions/active.ts';
import { describeChange, diffMappings, thresholdChanges } from '../mapping-versions/diff.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { FieldWritten } from '../store/field-summary.ts';
import type { MappingVersion } from '../store/mapping-versions.ts';
import { esc } from './html.ts';
import { readableTime, renderConsolePage } from './layout.ts';
import { renderVersions } from './mapping-versions-view.ts';
import { writtenCell } from './mapping-written.ts';

/** One connected CRM: its label and the name it knows each of our fields by. */
export interface CrmFieldNames {
  /** The CRM's kind, as the write history names it. */
  kind: string;
  label: string;
  nameOf: (property: string) => string;
}

export const POLICY_WORDS: Record<string, string> = {
  ours: 'into an empty field or over our last value; a person’s value is kept',
  'fill-empty': 'only into an empty field',
  overwrite: 'whenever our value differs',
};

export interface MappingPageView {
  active: ActiveVersion;
  versions: readonly MappingVersion[];
  crms: readonly CrmFieldNames[];
  /** Where the file's mapping came from (version 1). */
  source: string;
  /** The configured thresholds (a version without its own has these). */
  configured: MatchThresholds;
  /** The mapping file as this process read it at start, to tell when it moved on from version 1. */
  file?: Mapping | undefined;
  /** The version just saved (the page after a save or a revert). */
  saved?: number | undefined;
  /** Per CRM field of each tenant, our last write and the accounts holding ours (the Last written column). */
  written?: readonly FieldWritten[] | undefined;
}

const options = (values: readonly string[], selected: string) =>
  values.map((v) => `<option${v === selected ? ' selected' : ''}>${esc(v)}</option>`).join('');

const problem = (key: string) => `<small class="problem" data-key="${key}"></small>`;

/** One row of the form; `from` is its index in the version shown (absent for a new row). */
function row(
  f: MappingField | undefined,
  from: number | undefined,
  crms: readonly CrmFieldNames[],
  written: readonly FieldWritten[] = [],
): string {
  const name = f ? `${f.attribute} (${f.property})` : 'the new row';
  const policy = f?.policy ?? 'ours';
  return `<tr${from === undefined ? '' : ` data-from="${from}"`}>
<th scope="row"><input name="attribute" list="buyer-fields" value="${esc(f?.attribute ?? '')}" aria-label="Provider attribute of ${esc(name)}" size="22">${problem('attribute')}${f?.label ? `<small>${esc(f.label)}</small>` : ''}</th>
<td><input name="property" value="${esc(f?.property ?? '')}" aria-label="CRM field of ${esc(name)}" size="28">${problem('property')}</td>
${crms.map((c) => `<td><code>${f ? esc(c.nameOf(f.property)) : '—'}</code></td>`).join('')}
<td><select name="transform" aria-label="Transform of ${esc(name)}">${options(TRANSFORMS, f?.transform ?? 'text')}</select>${problem('transform')}${problem('enumLabels')}</td>
<td><select name="policy" aria-label="Write policy of ${esc(name)}">${options(WRITE_POLICIES, policy)}</select><small class="words">${esc(POLICY_WORDS[policy] ?? '')}</small>${problem('policy')}</td>
${writtenCell(f?.property, written, (kind) => crms.find((c) => c.kind === kind)?.label ?? kind)}
<td><button type="button" class="remove" aria-label="Remove ${esc(name)}">Remove</button></td>
</tr>`;
}

function summary(view: MappingPageView): string {
  const { active } = view;
  const count = new Map<string, number>();
  for (const f of active.mapping.fields) count.set(f.policy, (count.get(f.policy) ?? 0) + 1);
  const policies = [...count].map(([p, n]) => `${n} ${esc(p)}`).join(' · ');
  const current = view.versions.find((v) => v.version === active.version);
  const origin = active.fromFile
    ? `version 1: ${esc(view.source)} (nothing changed in the console yet)`
    : `version ${active.version}, saved ${current ? `by ${esc(current.actor)} ${readableTime(current.at)}` : ''}`;
  return `${active.mapping.fields.length} attributes written (${policies}) · ${origin}`;
}

/**
 * Once a version is saved, the file is no longer read: an operator who edits it and restarts would
 * see nothing change. Said on the page, with what differs.
 */
function fileNotice(view: MappingPageView): string {
  const first = view.versions.find((v) => v.version === 1);
  if (view.active.fromFile || !first || !view.file) return '';
  const changes = [
    ...diffMappings(first.mapping, view.file).map(describeChange),
    ...thresholdChanges(first.thresholds ?? view.configured, view.configured),
  ];
  if (!changes.length) return '';
  return `<div class="notice" role="note"><p><strong>${esc(view.source)} (or MATCH_ACCEPT_THRESHOLD / MATCH_AMBIGUITY_MARGIN) changed since it was stored as version 1</strong>; version ${view.active.version}, saved here, stays in force. To use what the file says, make the same change in this form: ${changes.map((c) => esc(c)).join('; ')}.</p></div>`;
}

export function renderMappingPage(view: MappingPageView): string {
  const { active, crms } = view;
  const head = crms.map((c) => `<th scope="col">${esc(c.label)} name</th>`).join('');
  const rows = active.mapping.fields.map((f, i) => row(f, i, crms, view.written)).join('\n');
  const next = active.version + 1;
  return renderConsolePage({
    title: 'Mapping',
    css: `tbody th{background:none;font-weight:normal}td small,th small{display:block}code{overflow-wrap:anywhere}
.problem{color:#a3141c;font-weight:600}fieldset.thresholds{display:flex;gap:24px;flex-wrap:wrap;border:1px solid #dfe3ea;border-radius:6px;margin:12px 0}fieldset.thresholds label{display:flex;flex-direction:column;max-width:320px}fieldset.thresholds input{width:7em}[aria-invalid=true]{border-color:#a3141c;border-width:2px}
.actions{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin:12px 0}.actions label{display:flex;flex-direction:column;font-size:12px;color:#4a5263}
#mapping-form input[name=attribute]{width:13em}#mapping-form input[name=property]{width:15em}
@media (max-width:1280px){#mapping-form input[name=attribute]{width:11.5em}#mapping-form input[name=property]{width:13em}}
.notice{border:1px solid #d9a400;background:#fff8e1;border-radius:6px;padding:0 12px;margin:0 0 12px}#form-problems{color:#a3141c}#form-problems:empty{display:none}
td.differs{background:#fff4d6}td.written span{display:block;min-width:9em}button:disabled{cursor:not-allowed;color:#5c6373;border-color:#aab1bf}`,
    active: 'mapping',
    body: `<h1>Field mapping</h1>
<p class="summary">${summary(view)}</p>
${fileNotice(view)}${view.saved === undefined ? '' : `<p id="flash" role="status">Version ${view.saved} saved: it is the mapping in force, for every job from now on.</p>`}
<form id="mapping-form" data-base="${active.version}" novalidate>
<div class="scroll"><table><caption class="muted">Each Buyer Intelligence attribute, the CRM field it is written to, how it is converted and when it is written. Edit a row, add or remove one, then preview the change.</caption>
<thead><tr><th scope="col">Provider attribute</th><th scope="col">CRM field</th>${head}<th scope="col">Transform</th><th scope="col">Write policy</th><th scope="col">Last written</th><th scope="col"><span class="muted">Row</span></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
<fieldset class="thresholds"><legend>Matching thresholds</legend>
<label>Auto-match floor <small>a candidate is matched automatically from this score up (0–1)</small><input type="number" name="acceptThreshold" step="0.01" min="0.01" max="1" value="${active.thresholds.acceptThreshold}">${problem('acceptThreshold')}</label>
<label>Review margin <small>a runner-up within this of the best sends the account to review (0–1)</small><input type="number" name="ambiguityMargin" step="0.01" min="0" max="0.99" value="${active.thresholds.ambiguityMargin}">${problem('ambiguityMargin')}</label>
</fieldset>
<template id="new-row">${row(undefined, undefined, crms)}</template>
<datalist id="buyer-fields">${BUYER_FIELDS.map((f) => `<option value="${esc(f)}"></option>`).join('')}</datalist>
<div class="actions">
<button type="button" id="add-row">Add a row</button>
<label for="reason">Why (recorded with the version)<input id="reason" maxlength="500" size="48"></label>
<button type="button" id="preview-button" class="primary">Preview the change</button>
<button type="button" id="save-button" disabled>Save as version ${next}</button>
</div>
<div id="form-problems" role="alert"></div>
</form>
<section id="preview" aria-live="polite"></section>
${renderVersions(view.versions, active.version, view.configured)}`,
    script: SCRIPT.replace('__WORDS__', JSON.stringify(POLICY_WORDS)),
  });
}

// Gathers the form, posts it as JSON (the admin POSTs take JSON only), and puts the server's answer in
// place: the preview's table, or each problem beside its input. Saving needs a preview of the form as
// it is: any edit after the preview disables Save until the next one.
const SCRIPT = `
const WORDS = __WORDS__;
const form = document.getElementById('mapping-form');
const body = form.querySelector('tbody');
const base = Number(form.dataset.base);
const save = document.getElementById('save-button');
const out = document.getElementById('preview');
const box = document.getElementById('form-problems');
const reason = document.getElementById('reason');
let previewed = null;
const rows = () => [...body.rows];
const fieldsOf = () => rows().map((tr) => {
  const v = (n) => tr.querySelector('[name=' + n + ']').value;
  const r = { attribute: v('attribute'), property: v('property'), transform: v('transform'), policy: v('policy') };
  if (tr.dataset.from !== undefined) r.from = Number(tr.dataset.from);
  return r;
});
const number = (name) => { const v = form.querySelector('[name=' + name + ']').value.trim(); return v === '' ? null : Number(v); };
const thresholdsOf = () => ({ acceptThreshold: number('acceptThreshold'), ambiguityMargin: number('ambiguityMargin') });
const post = async (path, payload) => {
  const res = await fetch('/admin/api/mapping' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const json = await res.json().catch(() => ({ message: 'the service answered ' + res.status }));
  return { ok: res.ok, json };
};
const clear = () => {
  box.replaceChildren();
  for (const p of form.querySelectorAll('.problem')) p.textContent = '';
  for (const c of form.querySelectorAll('[aria-invalid]')) { c.removeAttribute('aria-invalid'); c.removeAttribute('aria-describedby'); }
};
let ids = 0;
const show = (json) => {
  const list = document.createElement('ul');
  for (const p of json.problems || [{ row: null, message: json.message || 'failed' }]) {
    const tr = p.row === null ? undefined : rows()[p.row];
    const slot = tr ? tr.querySelector('.problem[data-key="' + p.key + '"]') || tr.querySelector('.problem') : p.key && form.querySelector('fieldset .problem[data-key="' + p.key + '"]');
    if (slot) {
      slot.textContent = p.message;
      slot.id = slot.id || 'problem-' + ++ids;
      const control = slot.parentElement.querySelector('input,select');
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute('aria-describedby', slot.id);
    }
    const li = document.createElement('li');
    li.textContent = (tr ? 'Row ' + (p.row + 1) + ' (' + (tr.querySelector('[name=attribute]').value || 'new') + '), ' + (p.key || 'row') + ': ' : '') + p.message;
    list.append(li);
  }
  box.replaceChildren(list);
  const first = form.querySelector('[aria-invalid=true]');
  if (first) first.focus();
};
const stale = (e) => {
  if (e.target === reason) return;
  previewed = null;
  save.disabled = true;
  if (e.target.name === 'policy') e.target.parentElement.querySelector('.words').textContent = WORDS[e.target.value] || '';
};
form.addEventListener('input', stale);
form.addEventListener('change', stale);
body.addEventListener('click', (e) => {
  const button = e.target.closest('button.remove');
  if (!button) return;
  button.closest('tr').remove();
  stale(e);
  document.getElementById('add-row').focus();
});
document.getElementById('add-row').addEventListener('click', (e) => {
  body.append(document.getElementById('new-row').content.cloneNode(true));
  stale(e);
  rows().at(-1).querySelector('input').focus();
});
document.getElementById('preview-button').addEventListener('click', async () => {
  clear();
  const edit = { base, fields: fieldsOf(), thresholds: thresholdsOf() };
  const r = await post('/preview', edit);
  if (!r.ok) { out.replaceChildren(); return show(r.json); }
  out.innerHTML = r.json.html;
  previewed = JSON.stringify(edit);
  save.disabled = r.json.changes === 0;
});
save.addEventListener('click', async () => {
  const edit = { base, fields: fieldsOf(), thresholds: thresholdsOf() };
  if (JSON.stringify(edit) !== previewed) { save.disabled = true; return; }
  clear();
  const r = await post('', { ...edit, reason: reason.value });
  if (!r.ok) return show(r.json);
  location.assign('/admin/mapping?saved=' + r.json.version);
});
for (const b of document.querySelectorAll('[data-revert]')) b.addEventListener('click', async () => {
  const r = await post('/revert', { base, version: Number(b.dataset.revert) });
  if (!r.ok) return show(r.json);
  location.assign('/admin/mapping?saved=' + r.json.version);
});
`;
