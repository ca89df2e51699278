// What a write history's tests record: a field write and a note as the write step hands them to the
// store (src/write/journal.ts), with plain defaults (HubSpot, tenant p1, a webhook job, one buyer, at
// T0) that each test overrides where its case differs.
import type { FieldWriteEntry, NoteEntry } from '../../src/write/journal.ts';

export const T0 = new Date('2026-03-01T12:00:00.000Z');
/** T0 plus `s` seconds. */
export const at = (s: number) => new Date(T0.getTime() + s * 1000);

/** What every entry of one job for one account carries. */
const ofJob = (accountId: string) => ({
  crm: 'hubspot',
  tenant: 'p1',
  accountId,
  runId: null,
  jobId: `job-${accountId}`,
  trigger: 'webhook' as const,
  buyerId: 'b1',
  at: T0,
});

export function fieldWrite(
  accountId: string,
  field: string,
  over: Partial<FieldWriteEntry> = {},
): FieldWriteEntry {
  return {
    ...ofJob(accountId),
    field,
    attribute: 'Population',
    kind: 'mapped',
    policy: 'ours',
    old: null,
    new: '100',
    decision: 'write',
    result: 'ok',
    error: null,
    ...over,
  };
}

export function noteEntry(accountId: string, key: string, over: Partial<NoteEntry> = {}): NoteEntry {
  return { ...ofJob(accountId), noteId: `n-${key}`, dedupeKey: key, title: `Signal ${key}`, ...over };
}
