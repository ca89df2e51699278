// /admin/mapping: the mapping in force, as a table a sales-ops lead reads instead of a YAML file — each
// provider attribute, the field it lands in under each connected CRM's own name (HubSpot's
// `buyer_intel_type`, Salesforce's `BuyerIntel_Type__c`), its transform and its write policy in words.
// Read-only: the file (MAPPING_FILE, docs/mapping.md) stays the one place a mapping is changed, so a
// deploy and the page never disagree about what is written.
import type { Mapping } from '../map/mapping-schema.ts';
import { esc } from './html.ts';
import { renderConsolePage } from './layout.ts';

/** One connected CRM: its label and the name it knows each of our fields by. */
export interface CrmFieldNames {
  label: string;
  nameOf: (property: string) => string;
}

const POLICY_WORDS: Record<string, string> = {
  ours: 'into an empty field or over our last value; a person’s value is kept',
  'fill-empty': 'only into an empty field',
  overwrite: 'whenever our value differs',
};

export function renderMappingPage(mapping: Mapping, crms: readonly CrmFieldNames[], source: string): string {
  const head = crms.map((c) => `<th scope="col">${esc(c.label)} field</th>`).join('');
  const rows = mapping.fields
    .map(
      (f) =>
        `<tr><th scope="row"><code>${esc(f.attribute)}</code>${f.label ? `<br><small>${esc(f.label)}</small>` : ''}</th>${crms
          .map((c) => `<td><code>${esc(c.nameOf(f.property))}</code></td>`)
          .join(
            '',
          )}<td>${esc(f.transform)}</td><td><span class="badge">${esc(f.policy)}</span> <small>${esc(POLICY_WORDS[f.policy] ?? '')}</small></td></tr>`,
    )
    .join('\n');
  const count = new Map<string, number>();
  for (const f of mapping.fields) count.set(f.policy, (count.get(f.policy) ?? 0) + 1);
  const policies = [...count].map(([p, n]) => `${n} ${esc(p)}`).join(' · ');
  return renderConsolePage({
    title: 'Mapping',
    css: 'tbody th{background:none;font-weight:normal}td small{display:block}code{overflow-wrap:anywhere}',
    active: 'mapping',
    body: `<h1>Field mapping</h1>
<p class="summary">${mapping.fields.length} attributes written (${policies}) · from ${esc(source)} · to change it, edit the mapping file and restart (the file format: <code>docs/mapping.md</code>)</p>
<div class="scroll"><table><caption class="muted">Each Buyer Intelligence attribute, the CRM field it is written to, how it is converted and when it is written</caption>
<thead><tr><th scope="col">Provider attribute</th>${head}<th scope="col">Transform</th><th scope="col">Write policy</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`,
  });
}
