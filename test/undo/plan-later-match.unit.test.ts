// Two findings of the interleaving property (undo-interleavings.test.ts), on the plan alone. A later
// enrichment of the SAME buyer holds the account too: undoing the older run once cleared everything but
// the later run's date (a company with a last-enriched date and no status); now the account stays with
// the later match, its notes of that buyer too. And a take-back of everything (a rejection) after an
// undo that put another buyer back: the undo's rows name the buyer it took back, not the one it put
// back, so the plan took the account for superseded and kept the restored buyer's data under the
// rejection's no_match; it is the buyer id the writes left that counts. And a move's own take-back
// still clears the old buyer's fields the new match left out, which 4fd8d64 had stopped.
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import type { UndoField } from '../../src/store/undo.ts';
import { planAccounts } from '../../src/undo/plan.ts';

const account = { crm: 'hubspot', tenant: 'p1', accountId: '101' };
const field = (
  name: string,
  wrote: string | null,
  later: (string | null)[] = [],
  buyerId = 'city',
): UndoField => ({
  ...account,
  field: name,
  kind: 'mapped',
  attribute: null,
  policy: null,
  buyerId,
  before: null,
  wrote,
  later,
});
const snapshot = (fields: Record<string, string>) => ({
  id: '101',
  name: 'City of Austin',
  state: 'TX',
  city: null,
  website: null,
  fields,
});
const note = (buyerId: string, noteId: string) => ({
  ...account,
  buyerId,
  noteId,
  dedupeKey: noteId,
  title: 'RFP',
  removed: false,
});

describe('an undo of an older run', () => {
  it('leaves the account to a later enrichment of the same buyer, with that buyer’s notes', () => {
    const fields = [
      field(P.buyerId, 'city'),
      field(P.status, 'enriched'),
      field(P.lastEnrichedAt, '2026-12-01T10:00:00.000Z', ['2026-12-02T10:00:00.000Z']),
      field('buyer_intel_county', 'Travis County'),
    ];
    const held = snapshot({
      [P.buyerId]: 'city',
      [P.status]: 'enriched',
      [P.lastEnrichedAt]: '2026-12-02T10:00:00.000Z',
      buyer_intel_county: 'Travis County',
    });
    const [plan] = planAccounts([account], fields, [note('city', 'n1'), note('county', 'n2')], [held]);
    expect(plan?.fields.map((f) => f.action)).toEqual(['ours', 'ours', 'ours', 'ours']);
    expect(plan?.notes.map((n) => n.noteId)).toEqual(['n2']);
  });

  it('still takes everything back once the later enrichment was itself undone', () => {
    const fields = [
      field(P.buyerId, 'city'),
      field(P.lastEnrichedAt, '2026-12-01T10:00:00.000Z', [
        '2026-12-02T10:00:00.000Z',
        '2026-12-01T10:00:00.000Z',
      ]),
    ];
    const held = snapshot({ [P.buyerId]: 'city', [P.lastEnrichedAt]: '2026-12-01T10:00:00.000Z' });
    const [plan] = planAccounts([account], fields, [note('city', 'n1')], [held]);
    expect(plan?.fields.map((f) => f.action)).toEqual(['restore', 'restore']);
    expect(plan?.notes).toHaveLength(1);
  });
});

describe('a take-back of everything after an undo put another buyer back', () => {
  it('takes back the buyer the CRM names, though the undo’s rows name the one it took back', () => {
    // The undo of a re-search to Travis County put City of Austin back: its rows carry Travis County.
    const fields = [
      field(P.buyerId, 'city', [], 'county'),
      field(P.status, 'enriched', [], 'county'),
      field('buyer_intel_type', 'City', [], 'county'),
    ];
    const held = snapshot({ [P.buyerId]: 'city', [P.status]: 'enriched', buyer_intel_type: 'City' });
    const [plan] = planAccounts([account], fields, [], [held]);
    expect(plan?.fields.map((f) => f.action)).toEqual(['restore', 'restore', 'restore']);
  });
});

describe('a move’s take-back', () => {
  it('takes back the old buyer’s fields the new match left out, though the CRM names the new buyer', () => {
    // What the job that moved the account wrote is left out of the take-back (keepFields): the rest is
    // the old buyer's, the district's enrollment on a company now the city's.
    const fields = [field('buyer_intel_total_enrollment', '75143', [], 'district')];
    const held = snapshot({ [P.buyerId]: 'city', buyer_intel_total_enrollment: '75143' });
    const [plan] = planAccounts([account], fields, [note('district', 'n1')], [held], { move: true });
    expect(plan?.fields.map((f) => f.action)).toEqual(['restore']);
    expect(plan?.notes).toHaveLength(1);
    const [undo] = planAccounts([account], fields, [note('district', 'n1')], [held]);
    expect(undo?.fields.map((f) => f.action)).toEqual(['ours']);
  });
});
