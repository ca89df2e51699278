// Writing company fields: one batch update per call, a result per record. A 207 error, or a 4xx for the
// whole batch, becomes the failure of the records it concerns, permanent when resending cannot help.

import type { AccountUpdate, UpdateResult, WriteFailure } from '../types.ts';
import { mergeUpdates, resultsInInputOrder } from '../update-batch.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import {
  describeProperties,
  errorContext,
  HubSpotRequestError,
  type RejectedProperty,
  rejectedProperties,
} from './errors.ts';

/** A 207 error (StandardError) or the like, read without trusting its shape. */
export interface BatchError {
  category?: unknown;
  message?: unknown;
  context?: unknown;
  errors?: unknown;
}

export interface BatchAnswer {
  results?: { id?: unknown; objectWriteTraceId?: unknown; properties?: Record<string, string | null> }[];
  errors?: BatchError[];
}

interface CompanyRecord {
  accountId: string;
  properties: Record<string, string>;
}

export async function updateAccounts(
  calls: HubSpotCalls,
  updates: readonly AccountUpdate[],
): Promise<UpdateResult[]> {
  if (updates.length === 0) return [];
  // HubSpot rejects a whole batch that names an id twice; it clears a property with "".
  const { merged, slotOf } = mergeUpdates(updates, HUBSPOT_BATCH_LIMIT);
  const records: CompanyRecord[] = merged.map((u) => ({
    accountId: u.accountId,
    properties: Object.fromEntries(Object.entries(u.fields).map(([name, value]) => [name, value ?? ''])),
  }));
  return resultsInInputOrder(updates, slotOf, await writeRecords(calls, records));
}

/** One batch update; per record: undefined = written, or why not. */
async function writeRecords(
  calls: HubSpotCalls,
  records: CompanyRecord[],
): Promise<(WriteFailure | undefined)[]> {
  // objectWriteTraceId on every input makes HubSpot report invalid values per record (207) instead
  // of refusing the whole batch; it is how a 207 error names the input it belongs to.
  const inputs = records.map((r, i) => ({
    id: r.accountId,
    properties: r.properties,
    objectWriteTraceId: String(i),
  }));
  let answer: { status: number; data: BatchAnswer };
  try {
    answer = await calls.call('crm.companies.batchApi.update', () =>
      calls.companies.batchApi.updateWithHttpInfo({ inputs }),
    );
  } catch (err) {
    if (err instanceof HubSpotRequestError) return wholeBatchRefused(err, records);
    throw err;
  }

  const failures = new Map<number, WriteFailure>();
  const unattributed: WriteFailure[] = [];
  for (const error of answer.data.errors ?? []) {
    const context = errorContext(error);
    let attributed = false;
    for (const traceId of context.objectWriteTraceId ?? []) {
      const index = Number(traceId);
      if (Number.isInteger(index) && records[index]) {
        failures.set(index, recordFailure(calls.redact, error));
        attributed = true;
      }
    }
    for (const id of context.ids ?? []) {
      const index = records.findIndex((r) => r.accountId === id);
      if (index >= 0) {
        failures.set(index, recordFailure(calls.redact, error, `HubSpot company ${id}`));
        attributed = true;
      }
    }
    if (!attributed) unattributed.push(recordFailure(calls.redact, error));
  }
  const written = new Set<string>();
  for (const result of answer.data.results ?? []) {
    if (typeof result.id === 'string') written.add(result.id);
    const index = Number(result.objectWriteTraceId);
    const record = typeof result.objectWriteTraceId === 'string' ? records[index] : undefined;
    if (record) written.add(record.accountId);
  }
  return records.map((record, index) => {
    const failure = failures.get(index);
    if (failure) return failure;
    if (answer.status === 200 || written.has(record.accountId)) return undefined;
    return (
      unattributed[0] ?? {
        status: undefined,
        message: `HubSpot's batch answer (${answer.status}) did not report company ${record.accountId}`,
        permanent: false,
      }
    );
  });
}

/**
 * A 4xx for the whole batch. Records that carry a rejected property fail permanently (the message
 * names it); the others were refused only for their company, so they may be sent again. A batch of
 * one is its own culprit.
 */
function wholeBatchRefused(err: HubSpotRequestError, records: CompanyRecord[]): WriteFailure[] {
  const rejected = err.rejectedProperties;
  return records.map((record) => {
    const own = rejected.filter((p) => Object.hasOwn(record.properties, p.name));
    if (own.length) {
      return {
        status: err.status,
        message: `HubSpot rejected ${describeProperties(own)}`,
        permanent: true,
      };
    }
    const reason = rejected.length ? `HubSpot rejected ${describeProperties(rejected)}` : err.message;
    return {
      status: err.status,
      message: records.length === 1 ? reason : `not written: HubSpot refused the whole batch (${reason})`,
      permanent: records.length === 1,
    };
  });
}

/**
 * A 207 error as one record's failure. Permanent: the company does not exist, or HubSpot named the
 * property it rejects (unknown, read-only, a value it can never take). Anything else may pass later.
 * Note creates (notes.ts) fall back to it too.
 */
export function recordFailure(
  redact: (text: string) => string,
  error: BatchError,
  subject?: string,
): WriteFailure {
  const category = typeof error.category === 'string' ? error.category : undefined;
  const message = redact(typeof error.message === 'string' ? error.message : 'HubSpot reported an error');
  if (category === 'OBJECT_NOT_FOUND') {
    return {
      status: 404,
      message: `${subject ?? 'HubSpot company'} not found (deleted or never existed): ${message}`,
      permanent: true,
    };
  }
  const rejected: RejectedProperty[] = rejectedProperties(error).map((p) => ({
    ...p,
    message: redact(p.message),
  }));
  if (rejected.length) {
    return { status: 400, message: `HubSpot rejected ${describeProperties(rejected)}`, permanent: true };
  }
  return {
    status: category === 'VALIDATION_ERROR' ? 400 : undefined,
    message: `${category ?? 'error'}: ${message}`,
    permanent: false,
  };
}
