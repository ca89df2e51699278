// The mapping page's HTML alone: a mapping file edited after the console took over is said on the page
// with what differs (the file is no longer read, and an operator who restarts expects it to be), and
// nothing is said while the file is what version 1 stored; a CRM's or a person's text stays text.
import { describe, expect, it } from 'vitest';
import { renderMappingPage } from '../../src/admin/mapping-page.ts';
import type { Mapping } from '../../src/map/mapping-schema.ts';
import type { MappingVersion } from '../../src/store/mapping-versions.ts';

const T = { acceptThreshold: 0.75, ambiguityMargin: 0.1 };
const FILE: Mapping = {
  version: 1,
  fields: [
    {
      attribute: 'MainPhoneNumber',
      property: 'buyer_intel_main_phone',
      transform: 'text',
      policy: 'fill-empty',
    },
  ],
};
const OVERWRITE: Mapping = {
  version: 1,
  fields: [{ ...(FILE.fields[0] as Mapping['fields'][number]), policy: 'overwrite' }],
};

const version = (n: number, mapping: Mapping, actor: string, reason: string | null): MappingVersion => ({
  version: n,
  mapping,
  thresholds: T,
  actor,
  reason,
  reverts: null,
  at: new Date('2026-12-01T10:00:00Z'),
});

const page = (file: Mapping, configured = T) =>
  renderMappingPage({
    active: { version: 2, mapping: OVERWRITE, thresholds: T, fromFile: false },
    versions: [
      version(2, OVERWRITE, '<b>ops</b>', 'phones <script>'),
      version(1, FILE, 'the mapping file', 'mapping.yaml'),
    ],
    crms: [{ kind: 'hubspot', label: 'HubSpot', nameOf: (p) => p }],
    source: 'mapping.yaml',
    configured,
    file,
  });

describe('the mapping page', () => {
  it('says nothing of the file while it is what version 1 stored', () => {
    expect(page(FILE)).not.toContain('class="notice"');
  });

  it('says the file changed since version 1, what differs, and that the saved version stays in force', () => {
    const moved: Mapping = {
      version: 1,
      fields: [
        ...FILE.fields,
        { attribute: 'County', property: 'buyer_intel_county', transform: 'text', policy: 'ours' },
      ],
    };
    const html = page(moved, { acceptThreshold: 0.8, ambiguityMargin: 0.1 });
    expect(html).toContain(
      'mapping.yaml (or MATCH_ACCEPT_THRESHOLD / MATCH_AMBIGUITY_MARGIN) changed since it was stored as version 1',
    );
    expect(html).toContain('version 2, saved here, stays in force');
    expect(html).toContain('buyer_intel_county: added (County, text, ours)');
    expect(html).toContain('auto-match floor 0.75 → 0.8');
  });

  it('keeps who saved a version and why as text', () => {
    const html = page(FILE);
    expect(html).toContain('&lt;b&gt;ops&lt;/b&gt;');
    expect(html).toContain('phones &lt;script&gt;');
    expect(html).not.toContain('<b>ops</b>');
  });
});
