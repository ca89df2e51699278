// What a shared batch channel puts in Redis, as JSON: waiting items tagged with their process and id,
// and the answers a sender pushes back to each submitting process. A failed send's error travels as
// its facts (src/shared/errors.ts) and is rebuilt on the other side, so the job's retry decision
// (queues/failure.ts) reads the same facts as if its own process had made the call.
import { IntegrationError, isIntegrationError } from '../shared/errors.ts';

/** One waiting item: submitting process, item id, deadline (epoch ms), the item itself. */
export interface WireItem {
  p: string;
  i: string;
  d: number;
  v: unknown;
}

export interface ErrorFacts {
  name: string;
  message: string;
  permanent: boolean;
  retryAfterMs?: number | undefined;
  limit?: 'shared' | 'tenant' | undefined;
  status?: number | undefined;
  requestId?: string | undefined;
}

/** One answer: the item's id and its result, or the facts of its batch's error. */
export type WireReply = [id: string, ok: 1, result: unknown] | [id: string, ok: 0, facts: ErrorFacts];

export const encodeItem = (item: WireItem): string => JSON.stringify(item);

export function decodeItem(raw: string): WireItem | undefined {
  try {
    const parsed = JSON.parse(raw) as Partial<WireItem>;
    if (typeof parsed.p !== 'string' || typeof parsed.i !== 'string' || typeof parsed.d !== 'number')
      return undefined;
    return parsed as WireItem;
  } catch {
    return undefined;
  }
}

export function factsOf(err: unknown): ErrorFacts {
  if (isIntegrationError(err))
    return {
      name: err.name,
      message: err.message,
      permanent: err.permanent,
      retryAfterMs: err.retryAfterMs,
      limit: err.limit,
      status: err.status,
      requestId: err.requestId,
    };
  // Not a failure an upstream described: like any unknown error, worth retrying.
  return {
    name: err instanceof Error ? err.name : 'Error',
    message: err instanceof Error ? err.message : String(err),
    permanent: false,
  };
}

/** A batch sent by another worker process failed; carries that failure's facts. */
export class RemoteBatchError extends IntegrationError {
  /** The class name of the error in the process that sent the batch. */
  readonly remoteName: string;
  constructor(facts: ErrorFacts) {
    super(facts.message, {
      permanent: facts.permanent,
      retryAfterMs: facts.retryAfterMs ?? undefined,
      limit: facts.limit ?? undefined,
      status: facts.status ?? undefined,
      requestId: facts.requestId ?? undefined,
    });
    this.remoteName = facts.name;
  }
}

/** No process answered an item in time (its sender died or Redis was away): the job retries. */
export class SharedBatchTimeout extends IntegrationError {
  constructor(key: string, ms: number) {
    super(`no batch of ${key} carried this item within ${ms} ms; trying again`, { permanent: false });
  }
}

export class SharedBatchUnavailable extends IntegrationError {
  constructor(key: string, reason: string) {
    super(`could not queue this item for a batch of ${key} (${reason}); trying again`, { permanent: false });
  }
}

export function decodeReplies(raw: string): WireReply[] {
  try {
    const parsed = JSON.parse(raw) as unknown;
    return Array.isArray(parsed) ? (parsed as WireReply[]) : [];
  } catch {
    return [];
  }
}
