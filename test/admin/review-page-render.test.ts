// The review page's HTML: every value from a CRM or a person is escaped, and "Next" carries the filter.
import { describe, expect, it } from 'vitest';
import { renderReviewPage } from '../../src/admin/review-page.ts';
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
      /<a id="next" href="\/admin\/review\?cohort=needs_review&amp;q=[^"]+&amp;sort=confidence&amp;after=abc_DEF-1">Next<\/a>/,
    );
    expect(html).toContain('Needs review <span class="count">3</span>');
  });

  it('ends the list without a Next link on the last page', () => {
    const html = renderReviewPage({ filter: {}, sort: 'date', counts, rows: [], next: null });
    expect(html).not.toContain('id="next"');
    expect(html).toContain('id="end"');
  });
});
