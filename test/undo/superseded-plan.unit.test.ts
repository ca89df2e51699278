// Undoing an older run on an account a later match re-pinned to another buyer: the fields stay with the
// later match (what both buyers share was written once, by the older run, and is the later buyer's
// now), so the CRM never names one buyer over another's half-cleared data; the older run's notes go.
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import type { UndoField } from '../../src/store/undo.ts';
import { planAccounts } from '../../src/undo/plan.ts';

const account = { crm: 'hubspot', tenant: 'p1', accountId: '101' };
const field = (
  name: string,
  wrote: string | null,
  before: string | null,
  later: string[] = [],
): UndoField => ({
  ...account,
  field: name,
  kind: 'mapped',
  attribute: null,
  policy: null,
  buyerId: 'buyer-a',
  before,
  wrote,
  later,
});
const fields = [
  field(P.buyerId, 'buyer-a', null, ['buyer-b']),
  field(P.status, 'enriched', null),
  field('buyer_intel_county', 'Travis County', null),
];
const note = { ...account, buyerId: 'buyer-a', noteId: 'n1', dedupeKey: 'k1', title: 'RFP', removed: false };
const snapshot = (buyer: string) => ({
  id: '101',
  name: 'Austin ISD',
  state: 'TX',
  city: 'Austin',
  website: null,
  fields: { [P.buyerId]: buyer, [P.status]: 'enriched', buyer_intel_county: 'Travis County' },
});

describe('an undo of an older run', () => {
  it('leaves every field to a later match of another buyer and removes only the old notes', () => {
    const [plan] = planAccounts([account], fields, [note], [snapshot('buyer-b')]);
    expect(plan?.fields.map((f) => [f.field, f.action])).toEqual([
      [P.buyerId, 'ours'],
      [P.status, 'ours'],
      ['buyer_intel_county', 'ours'],
    ]);
    expect(plan?.notes).toHaveLength(1);
  });

  it('takes the fields back while the CRM still names the buyer they were written for', () => {
    const [plan] = planAccounts([account], fields, [], [snapshot('buyer-a')]);
    expect(plan?.fields.map((f) => f.action)).toEqual(['restore', 'restore', 'restore']);
  });
});
