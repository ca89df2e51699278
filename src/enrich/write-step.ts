// The last step: the fields go to the CRM, then (once it took them) the notes, then our records keep
// what went through (the notes made, the values written, the buyer).
import type { AccountRef } from '../../connectors/types.ts';
import type { FieldChange } from '../map/plan.ts';
import { PermanentWriteError } from '../write/errors.ts';
import type { WriteOrigin } from '../write/journal.ts';
import type { PlannedNotes } from './map-step.ts';
import type { CrmRead } from './resolve-step.ts';
import type { EnrichResult, PipelineDeps } from './types.ts';
import { writeContextOf } from './write-context.ts';

/** Everything the write step sends and records. */
export interface Writes {
  crm: CrmRead;
  match: EnrichResult['match'];
  fields: FieldChange[];
  written: Record<string, string | null>;
  notes: PlannedNotes;
}

/** Write: the fields, then the notes, then what our records keep of them. Returns the notes created. */
export async function writeStep(
  deps: PipelineDeps,
  ref: AccountRef,
  { crm, match, fields, written, notes }: Writes,
  job: WriteOrigin | undefined,
): Promise<{ key: string; title: string }[]> {
  const origin = { ...job, buyerId: match.buyerId };
  // A tenant not known to have our fields (one just added) gets them before anything of the job is
  // written; if the CRM refuses them, nothing is (src/write/our-fields.ts).
  if (deps.ourFieldsReady && (Object.keys(written).length || notes.create.length))
    await deps.ourFieldsReady(ref.crm, ref.tenant);
  // The fields first, the notes only once the CRM took them: a note tells what the fields now say, and
  // one left on an account whose write was refused (a property the CRM lacks, a value it rejects) reads
  // as a finished enrichment. The refused write is on the record still: its history row is settled as
  // an error by the batch that sent it (batched-writes.ts), the job's failure on the account's outcome.
  const update = Object.keys(written).length
    ? await deps.writeAccount(
        ref.crm,
        ref.tenant,
        { accountId: ref.accountId, fields: written },
        writeContextOf(job, match.buyerId, fields, crm.account.fields, written),
      )
    : undefined;
  if (update && !update.ok) {
    const message = `writing account ${ref.accountId} failed: ${update.error.message}`;
    throw update.error.permanent ? new PermanentWriteError(message) : new Error(message);
  }
  // Write-ahead: a crash after the CRM made a note and before we record it leaves the marker behind.
  if (notes.create.length && !notes.markedPending)
    await deps.ledgers.notesPending(
      ref,
      notes.create.map((n) => n.dedupeKey),
    );
  const results = await Promise.all(
    notes.create.map((n) =>
      deps.createNote(ref.crm, ref.tenant, n, { ...origin, signal: notes.signalOf.get(n.dedupeKey) }),
    ),
  );
  await deps.ledgers.recordNotes(
    ref,
    results.flatMap((r) => (r.ok ? [r.dedupeKey] : [])),
  );
  const created = results.flatMap((r, i) =>
    r.ok ? [{ key: r.dedupeKey, title: notes.create[i]?.title ?? '' }] : [],
  );
  // The buyer, in the index of matches (the values written are in the history already).
  await deps.ledgers.recordMatch(ref, match.buyerId);
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) {
    const message = `creating a note on account ${ref.accountId} failed: ${failed.error.message}`;
    throw failed.error.permanent ? new PermanentWriteError(message) : new Error(message);
  }
  return created;
}
