// One enrichment of one CRM account, in its steps: read the account and resolve it to a buyer
// (resolve-step.ts) → fetch the buyer's mapped attributes (one bulk call) and recent signals (one call)
// (fetch-step.ts) → map them to field writes under each field's policy, the notes not yet on the
// account and our provenance (map-step.ts) → write (write-step.ts). Every step is idempotent: delivery
// is at least once, so a job may run twice and must leave the account as if it ran once.
import type { AccountRef } from '../../connectors/types.ts';
import { describeMatch, fetchStep } from './fetch-step.ts';
import { mapStep, NO_NOTES, provenanceStep, writesOf } from './map-step.ts';
import { readStep, resolveStep, statusOf } from './resolve-step.ts';
import type { EnrichOptions, EnrichResult, PipelineDeps } from './types.ts';
import { writeStep } from './write-step.ts';

/** One mapping and one set of thresholds for the whole job, read at its start: a version saved meanwhile applies to the next. */
async function inForce(given: PipelineDeps): Promise<PipelineDeps> {
  if (!given.inForce) return given;
  const now = await given.inForce();
  return {
    ...given,
    mapping: now.mapping,
    ...(given.resolverFor ? { resolver: given.resolverFor(now.thresholds) } : {}),
  };
}

/**
 * One account, step by step: each step takes what the ones before it found and returns what it
 * found; nothing is carried between them otherwise.
 */
export async function enrichAccount(
  given: PipelineDeps,
  ref: AccountRef,
  options: EnrichOptions = {},
): Promise<EnrichResult> {
  const deps = await inForce(given);
  const dryRun = options.dryRun ?? false;
  const now = (deps.now ?? (() => new Date()))();
  const crm = await readStep(deps, ref);
  const decision = await resolveStep(deps, crm.account, options, ref);
  const fetched =
    decision.status === 'matched' ? await fetchStep(deps, ref, decision.buyerId, options.job) : null;
  const match = describeMatch(decision, fetched, options.review);
  const planned =
    fetched && decision.status === 'matched'
      ? await mapStep(deps, ref, crm, decision.buyerId, fetched, { now, dryRun })
      : null;
  const provenance = provenanceStep(decision, match, crm, options.rejected);
  const { changes: fields, updates: fieldUpdates } = planned?.fields ?? { changes: [], updates: {} };
  const notes = planned?.notes ?? NO_NOTES;
  const written = writesOf(crm.account, fieldUpdates, provenance.values, notes.create, now);
  const created = dryRun
    ? notes.create.map((n) => ({ key: n.dedupeKey, title: n.title }))
    : await writeStep(deps, ref, { crm, match, fields, written, notes }, options.job);
  return {
    account: { ...ref, name: crm.account.name, state: crm.account.state },
    status: statusOf(decision),
    match,
    fields,
    written,
    fitNotes: [
      ...fields.flatMap((f) => (f.fit ? [{ field: f.property, ...f.fit }] : [])),
      ...provenance.notes,
    ],
    notes: { created, alreadyPresent: notes.alreadyPresent, overCap: notes.overCap },
    dryRun,
  };
}
