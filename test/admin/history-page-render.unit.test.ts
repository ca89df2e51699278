// The history pages' HTML: every value from a CRM, the provider or a person is escaped (field values,
// note titles, a run's label, the account name), a kept or refused value reads as such, and "Older"
// carries the cursor (and the tenant) of the next page.
import { describe, expect, it } from 'vitest';
import { renderAccountHistoryPage, renderRunPage } from '../../src/admin/history-page.ts';
import { changeWords, undoCountsWords, valueWords } from '../../src/admin/history-words.ts';
import type { ChangeJson } from '../../src/api/history-routes.ts';

const hostile = `<img src=x onerror="alert(1)">'&`;

const change: ChangeJson = {
  crm: 'hubspot',
  tenant: '123',
  accountId: '42',
  at: '2026-03-01T12:00:00.000Z',
  runId: '7',
  run: { kind: 'backfill', label: `backfill ${hostile}`, actor: 'cli (ops)' },
  jobId: 'hubspot.123.42.backfill.7',
  trigger: 'backfill',
  buyerId: 'b1',
  fields: [
    {
      field: 'buyer_intel_population',
      attribute: 'Population',
      kind: 'mapped',
      policy: 'ours',
      old: hostile,
      new: '931830',
      decision: 'blocked-edited-by-person',
      result: 'not_sent',
      error: null,
      at: '2026-03-01T12:00:00.000Z',
    },
    {
      field: 'buyer_intel_url',
      attribute: 'Url',
      kind: 'mapped',
      policy: 'ours',
      old: null,
      new: hostile,
      decision: 'write',
      result: 'error',
      error: `400: ${hostile}`,
      at: '2026-03-01T12:00:00.000Z',
    },
  ],
  notes: [
    {
      action: 'created',
      noteId: 'n1',
      dedupeKey: 'bi-b1-r1',
      title: hostile,
      at: '2026-03-01T12:00:00.000Z',
    },
    { action: 'removed', noteId: 'n0', dedupeKey: 'bi-b0-r0', title: 'old', at: '2026-03-01T12:00:00.000Z' },
  ],
};

describe('history pages', () => {
  it('escape every value and say what was kept and what the CRM refused', () => {
    const html = renderAccountHistoryPage({
      crm: 'hubspot',
      tenant: '123',
      accountId: '42',
      accountName: hostile,
      changes: [change],
      next: '99',
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;');
    expect(html).toMatch(
      /<tr class="field kept" data-field="buyer_intel_population">.*kept \(a person’s edit\)/s,
    );
    expect(html).toContain('refused by the CRM: 400: &lt;img');
    expect(html).toContain('<a href="/admin/runs/7">backfill 7</a>');
    expect(html).toContain(
      '<a id="older" href="/admin/history/hubspot/42?tenant=123&amp;after=99">Older</a>',
    );
    // The change's when, run and buyer span its field and note rows.
    expect(html).toContain('removed by an undo <small>(n0)</small>');
    expect(html).toContain(
      '<td rowspan="4"><time datetime="2026-03-01T12:00:00.000Z">1 Mar 2026, 12:00 UTC</time>',
    );
    // A kept value says whose it is and that ours was not written.
    expect(html).toContain(
      '<td class="change">kept the person’s &lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;; ours (931,830) not written</td>',
    );
    expect(html).toContain('<td class="change">empty → &lt;img');
  });

  it('say what a person’s decisions taught, escaped, and whether it still holds', () => {
    const rule = (verdict: 'confirm' | 'reject', undoneAt: string | null) => ({
      verdict,
      buyerId: 'b1',
      buyerName: hostile,
      accountName: 'HCPSS',
      state: 'MD',
      nameForm: 'hcpss',
      at: '2026-12-03T09:00:00.000Z',
      undoneAt,
      rule: `a person matched "HCPSS" (MD) to ${hostile} on 2026-12-03`,
    });
    const html = renderAccountHistoryPage({
      crm: 'hubspot',
      accountId: '42',
      changes: [change],
      next: null,
      learned: [rule('confirm', null), rule('reject', '2026-12-04T10:00:00.000Z')],
    });
    expect(html).not.toContain(hostile);
    expect(html).toContain('to &lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp; on 2026-12-03');
    expect(html).toContain('<tr class="learned live" data-verdict="confirm">');
    expect(html).toContain('holds for the next account typed this way');
    expect(html).toContain(
      'taken back <time datetime="2026-12-04T10:00:00.000Z">4 Dec 2026, 10:00 UTC</time>',
    );
    // An account that taught nothing shows no such table.
    expect(
      renderAccountHistoryPage({ crm: 'hubspot', accountId: '42', changes: [change], next: null }),
    ).not.toContain('table class="learned"');
  });

  it('show a run’s counts and link each change to its account', () => {
    const html = renderRunPage({
      id: '7',
      kind: 'backfill',
      label: hostile,
      actor: hostile,
      startedAt: '2026-03-01T12:00:00.000Z',
      finishedAt: null,
      outcomes: { enriched: 1, needs_review: 0, no_match: 0, error: 0 },
      writes: {
        accounts: 1,
        fieldsWritten: 0,
        fieldsFailed: 1,
        fieldsSkipped: 1,
        notesCreated: 1,
        notesRemoved: 2,
      },
      changes: [change],
      next: null,
    });
    expect(html).not.toContain('<img');
    expect(html).toContain(
      '<tr data-count="values kept by a policy"><td>values kept by a policy</td><td>1</td></tr>',
    );
    expect(html).toContain('<tr data-count="notes removed"><td>notes removed</td><td>2</td></tr>');
    expect(html).toContain('<a href="/admin/history/hubspot/42?tenant=123">42</a>');
    expect(html).not.toContain('id="older"');
    expect(renderRunPage({ ...runEmpty(), changes: [] })).toContain('Nothing recorded.');
  });
});

describe('history in words', () => {
  it('says what a policy or an undo kept, with readable numbers and ids left as they are', () => {
    const kept = { attribute: 'Population', result: 'not_sent' as const };
    expect(changeWords({ ...kept, old: '1400000', new: null, decision: 'blocked-edited-by-person' })).toBe(
      'kept the person’s 1,400,000; ours not written',
    );
    expect(changeWords({ ...kept, old: '1400000', new: null, decision: 'undo-kept-edit' })).toBe(
      'kept the person’s 1,400,000; the value before (empty) not put back',
    );
    expect(changeWords({ ...kept, old: 'x', new: 'y', decision: 'blocked-not-empty' })).toBe(
      'kept x, the field had a value; ours (y) not written',
    );
    expect(
      changeWords({ attribute: 'Population', result: 'ok', old: null, new: '931830', decision: 'write' }),
    ).toBe('empty → 931,830');
    expect(valueWords('0612345', 'NcesId')).toBe('0612345');
    expect(valueWords('123456', 'CensusId')).toBe('123456');
    expect(valueWords('2026', 'FoundedYear')).toBe('2,026');
  });

  it('says an undo’s counts in sentences, zeros left out', () => {
    const words = undoCountsWords({
      accounts: 3,
      restored: 12,
      unchanged: 0,
      skipped: 1,
      ours: 0,
      notesRemoved: 4,
      notesGone: 0,
      failed: 0,
      gone: 0,
    });
    expect(words).toEqual([
      '3 accounts done',
      '12 fields put back to the value before',
      '1 field kept: a person changed it after we wrote it',
      '4 notes removed',
    ]);
    expect(words.join(' ')).not.toMatch(/notesGone|gone 0|ours 0/);
    expect(undoCountsWords({ accounts: 1 })).toEqual([
      '1 account done',
      'nothing of ours was left to take back',
    ]);
  });
});

function runEmpty() {
  return {
    id: '8',
    kind: 'webhook',
    label: 'a webhook',
    actor: null,
    startedAt: '2026-03-01T12:00:00.000Z',
    finishedAt: null,
    outcomes: { enriched: 0, needs_review: 0, no_match: 0, error: 0 },
    writes: {
      accounts: 0,
      fieldsWritten: 0,
      fieldsFailed: 0,
      fieldsSkipped: 0,
      notesCreated: 0,
      notesRemoved: 0,
    },
    next: null,
  };
}
