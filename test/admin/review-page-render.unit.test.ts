// The review page's HTML: every value from a CRM or a person is escaped, "Next" carries the filter, and the
// duplicates tab shows groups with the recommended account first and why.
import { describe, expect, it } from 'vitest';
import { groupViewOf } from '../../src/admin/review-groups.ts';
import { renderReviewPage } from '../../src/admin/review-page.ts';
import { recommendedOf } from '../../src/review/duplicates.ts';
import type { Outcome } from '../../src/store/outcomes.ts';

const hostile = `<img src=x onerror="alert(1)">'&`;

const outcome: Outcome = {
  id: '1',
  crm: 'hubspot',
  tenant: '123',
  accountId: '42',
  accountName: hostile,
  state: 'IL',
  status: 'needs_review',
  cohort: 'needs_review',
  matchedBy: null,
  buyerId: null,
  buyerName: null,
  buyerType: null,
  confidence: 0.61,
  reason: `Needs review: ${hostile}`,
  candidates: [{ buyerId: 'b1', name: hostile, stateCode: 'IL', type: 'City', score: 0.61 }],
  detail: null,
  trigger: 'backfill',
  error: null,
  pinned: false,
  duplicateOf: null,
  runId: null,
  jobId: null,
  updatedAt: new Date('2026-01-01T00:00:00Z'),
};

const counts = {
  matched_by_id: 1,
  matched_by_name: 2,
  needs_review: 3,
  no_match: 4,
  error: 5,
  duplicates: 6,
};

describe('renderReviewPage', () => {
  it('keeps every filter (crm, tenant, buyer type, dates) in Next, Previous, the tabs, the form and the export', () => {
    const since = new Date('2026-01-02T00:00:00.000Z');
    const html = renderReviewPage({
      filter: {
        cohort: 'needs_review',
        crm: 'salesforce',
        tenant: '00D5g000004Xyz',
        buyerType: 'City',
        since,
        q: 'Austin',
      },
      sort: 'date',
      counts,
      rows: [outcome],
      next: 'n2',
      after: 'n1',
      trail: ['n0'],
      total: 337,
      offset: 100,
      limit: 50,
    });
    const links = ['next', 'prev', 'export-review'].map((id) => {
      const href = html.match(new RegExp(`id="${id}"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*id="${id}"`));
      return new URL((href?.[1] ?? href?.[2] ?? '').replaceAll('&amp;', '&'), 'http://x').searchParams;
    });
    const tab = html.match(/<a class="tab[^"]*" data-cohort="no_match" href="([^"]+)"/)?.[1] ?? '';
    links.push(new URL(tab.replaceAll('&amp;', '&'), 'http://x').searchParams);
    for (const params of links) {
      expect(params.get('crm')).toBe('salesforce');
      expect(params.get('tenant')).toBe('00D5g000004Xyz');
      expect(params.get('buyerType')).toBe('City');
      expect(params.get('since')).toBe(since.toISOString());
      expect(params.get('q')).toBe('Austin');
    }
    expect(links[0]?.get('after')).toBe('n2');
    expect(links[1]?.get('after')).toBe('n0');
    expect(links[3]?.get('cohort')).toBe('no_match');
    // Pressing Filter keeps what the form has no field for; approve-by-floor is scoped the same way.
    expect(html).toContain('<input type="hidden" name="crm" value="salesforce">');
    expect(html).toContain('<input type="hidden" name="tenant" value="00D5g000004Xyz">');
    const scope = JSON.parse((html.match(/data-filter="([^"]+)"/)?.[1] ?? '{}').replaceAll('&quot;', '"'));
    expect(scope).toEqual({
      crm: 'salesforce',
      tenant: '00D5g000004Xyz',
      buyerType: 'City',
      since: since.toISOString(),
      q: 'Austin',
    });
  });

  it('escapes names, reasons, candidates and the search text', () => {
    const html = renderReviewPage({
      filter: { cohort: 'needs_review', q: hostile },
      sort: 'confidence',
      counts,
      rows: [outcome],
      next: 'abc_DEF-1',
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;');
    expect(html).toMatch(
      /<a id="next" rel="next" href="\/admin\/review\?cohort=needs_review&amp;q=[^"]+&amp;sort=confidence&amp;after=abc_DEF-1">Next<\/a>/,
    );
    expect(html).toContain('Needs review <span class="count">3</span>');
  });

  it('ends the list without a Next link on the last page', () => {
    const html = renderReviewPage({ filter: {}, sort: 'date', counts, rows: [], next: null });
    expect(html).not.toContain('id="next"');
    expect(html).toContain('id="end"');
  });
});

describe('the duplicates tab', () => {
  const member = (id: string, over: Partial<Outcome>): Outcome => ({
    ...outcome,
    id,
    accountId: `a${id}`,
    accountName: `Account ${id}`,
    status: 'enriched',
    cohort: 'matched_by_name',
    matchedBy: 'name',
    buyerId: 'b1',
    buyerName: 'Travis County',
    confidence: 0.85,
    reason: 'Matched "Travis County" (TX) with 0.85',
    candidates: [],
    ...over,
  });
  const group = (members: Outcome[]) =>
    groupViewOf({
      crm: 'hubspot',
      tenant: '123',
      buyerId: 'b1',
      members,
      recommended: recommendedOf(members)?.accountId ?? null,
    });
  const page = (groups: ReturnType<typeof group>[], next: string | null) =>
    renderReviewPage({
      filter: { cohort: 'duplicates' },
      sort: 'confidence',
      counts,
      rows: [],
      next,
      groups,
    });

  it('puts the account with the strongest evidence first and says why, the others duplicate of it', () => {
    const byId = group([
      member('1', { confidence: 0.99, duplicateOf: 'a3' }),
      member('2', { reason: 'Confirmed by ops: Travis County', confidence: 1, duplicateOf: 'a3' }),
      member('3', { matchedBy: 'id', confidence: 1, accountName: 'Pinned' }),
    ]);
    expect(byId.members.map((m) => m.accountId)).toEqual(['a3', 'a1', 'a2']);
    expect(byId.why).toBe('strongest evidence: matched by id, confidence 1.00');
    const html = page([byId], null);
    expect(html).toContain('<td class="how">confirmed by a person</td>');
    expect(html.match(/class="member recommended"/g)).toHaveLength(1);
    expect(html.match(/duplicate of Pinned \(a3\)/g)).toHaveLength(2);
    expect(html).not.toContain('class="stale"');
    expect(html).toContain('<span id="end">End of groups</span>');

    expect(group([member('1', {}), member('2', { confidence: 0.9 })]).why).toBe(
      'strongest evidence: matched by name, confidence 0.90 (the highest)',
    );
    expect(group([member('7', {}), member('4', {})]).recommended?.accountId).toBe('a4');
    expect(group([member('7', {}), member('4', {})]).why).toBe(
      'equal evidence (matched by name, confidence 0.85); recorded first',
    );
  });

  it('escapes names and the buyer, says when the CRM mark lags, and links "More groups" by cursor', () => {
    const html = page(
      [
        group([
          member('1', { buyerName: hostile }),
          member('2', { accountName: hostile, duplicateOf: null }),
        ]),
      ],
      'WyJodWJzcG90IiwiMTIzIiwiYjEiXQ',
    );
    expect(html).not.toContain('<img');
    expect(html).toContain(
      '<span class="buyer">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;</span>',
    );
    expect(html).toContain(
      'duplicate of Account 1 (a1)</span><br><small class="stale">the CRM still says no duplicate</small>',
    );
    expect(html).toContain(
      '<a id="more-groups" href="/admin/review?cohort=duplicates&amp;sort=confidence&amp;after=WyJodWJzcG90IiwiMTIzIiwiYjEiXQ">More groups</a>',
    );
    // No filter form or bulk approve: they do not apply to groups.
    expect(html).not.toContain('form class="filter"');
    expect(html).not.toContain('id="approve-selected"');
  });
});
