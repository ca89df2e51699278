// The mapping page's two read-outs: the versions (who saved which change when, and why, each with what
// it changed against the version before it and a revert), and a preview's table (for each sampled
// account and each field the change touches: the value now → what the mapping in force does → what
// the new one would), returned to the page's script as HTML so every value is escaped here.

import { describeChange, diffMappings, thresholdChanges } from '../mapping-versions/diff.ts';
import type { MappingPreview, PreviewCell } from '../mapping-versions/preview.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { MappingVersion } from '../store/mapping-versions.ts';
import { esc } from './html.ts';
import { readableTime } from './layout.ts';

const DECISION_WORDS: Record<string, string> = {
  write: 'writes',
  clear: 'clears it',
  unchanged: 'already holds it',
  'blocked-edited-by-person': 'keeps a person’s value',
  'blocked-not-empty': 'keeps the value there',
  'skip-no-value': 'no value: left as is',
};

const value = (v: string | null) =>
  v === null ? '<span class="muted">(empty)</span>' : `<code>${esc(v)}</code>`;

function cell(c: PreviewCell | null, differs: boolean): string {
  if (!c) return '<td class="muted">not written by this mapping</td>';
  const words = DECISION_WORDS[c.decision] ?? c.decision;
  const shown = c.decision === 'write' ? `${words} ${value(c.value)}` : esc(words);
  return `<td${differs ? ' class="differs"' : ''} title="${esc(c.reason)}">${shown}<small>${esc(c.reason)}</small></td>`;
}

function thresholdLines(preview: MappingPreview): string[] {
  const t = preview.thresholds;
  if (!t) return [];
  const lines = thresholdChanges(t.from, t.to).map((l) => esc(l));
  if (t.reviewReaching !== undefined)
    lines.push(
      `${t.reviewReaching.toLocaleString('en-US')} accounts waiting for review have a best candidate scoring ${t.to.acceptThreshold} or more: their next enrichment can match them automatically (unless a rival within the margin holds it back)`,
    );
  if (t.matchedBelow !== undefined)
    lines.push(
      `${t.matchedBelow.toLocaleString('en-US')} accounts matched by name scored below ${t.to.acceptThreshold}: they keep their buyer (its id is on the record), but a new account that scores as they did goes to review instead`,
    );
  return lines;
}

export function renderPreview(preview: MappingPreview, activeVersion: number): string {
  const thresholds = thresholdLines(preview);
  if (!preview.changes.length && !thresholds.length)
    return '<h2>Preview</h2><p>The form is the mapping in force: there is nothing to save.</p>';
  const differing = new Set(
    preview.rows.filter((r) => r.differs).map((r) => `${r.crm}/${r.tenant}/${r.accountId}`),
  );
  const changes = [...preview.changes.map((c) => esc(describeChange(c))), ...thresholds]
    .map((line) => `<li>${line}</li>`)
    .join('');
  const rows = preview.rows
    .map(
      (
        r,
      ) => `<tr><th scope="row">${esc(r.accountName ?? r.accountId)}<small>${esc(r.crm)} · ${esc(r.tenant)}</small></th>
<td><code>${esc(r.property)}</code></td><td>${value(r.current)}</td>${cell(r.before, false)}${cell(r.after, r.differs)}</tr>`,
    )
    .join('\n');
  const unavailable = preview.unavailable.length
    ? `<p class="muted">Left out, their buyer could not be read now: ${preview.unavailable
        .map((u) => `${esc(u.accountName ?? u.accountId)} (${esc(u.reason)})`)
        .join('; ')}</p>`
    : '';
  return `<h2 id="preview-heading">Preview</h2>
<p class="summary" id="preview-summary">${preview.changes.length ? `${differing.size} of ${preview.sampled} recently enriched accounts would end up with a different value. ` : ''}Nothing is written until you save; the accounts get the change at their next enrichment.</p>
<ul>${changes}</ul>${unavailable}
${
  preview.rows.length
    ? `<div class="scroll"><table aria-labelledby="preview-heading"><thead><tr><th scope="col">Account</th><th scope="col">CRM field</th><th scope="col">Now in the CRM</th><th scope="col">Version ${activeVersion} (in force)</th><th scope="col">With this change</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`
    : preview.changes.length
      ? '<p>No recently enriched account to try it on.</p>'
      : ''
}`;
}

export function renderVersions(
  versions: readonly MappingVersion[],
  active: number,
  configured: MatchThresholds,
): string {
  const rows = versions
    .map((v, i) => {
      const older = versions[i + 1];
      const changed = older
        ? [
            ...diffMappings(older.mapping, v.mapping).map(describeChange),
            ...thresholdChanges(older.thresholds ?? configured, v.thresholds ?? configured),
          ].map((line) => `<li>${esc(line)}</li>`)
        : [];
      const what = v.reverts
        ? `<p>Reverts to version ${v.reverts}.</p>`
        : older
          ? ''
          : '<p>The starting point: the mapping file.</p>';
      const list = changed.length ? `<ul>${changed.join('')}</ul>` : older ? '<p>No row changed.</p>' : '';
      const action =
        v.version === active
          ? '<span class="badge ok">in force</span>'
          : `<button type="button" data-revert="${v.version}">Revert to version ${v.version}</button>`;
      return `<tr><th scope="row">${v.version}</th><td>${v.at.getTime() === 0 ? '' : readableTime(v.at)}</td><td>${esc(v.actor)}</td><td>${esc(v.reason ?? '')}</td><td>${what}${list}</td><td>${action}</td></tr>`;
    })
    .join('\n');
  return `<h2 id="versions-heading">Versions</h2>
<div class="scroll"><table aria-labelledby="versions-heading"><thead><tr><th scope="col">Version</th><th scope="col">Saved</th><th scope="col">By</th><th scope="col">Why</th><th scope="col">What changed</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}
