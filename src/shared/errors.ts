// The one error root. Every failure that crosses a module boundary says what a caller must know to
// act on it — may it ever succeed (`permanent`), when to try again (`retryAfterMs`), whose limit was
// hit (`limit`), the upstream's status and request id, how a call that got no answer failed (`kind`) —
// so retry and give-up decisions read fields, never class names (a new upstream's errors are handled
// the day they extend this class).

/**
 * How a call failed where no status can say, for it got no answer: `unreachable` — no connection
 * (DNS, refused or reset), so the address or the network is wrong for every call; `timeout` — no
 * answer in time, which the next call may well get. Both are transient and carry no status.
 */
export type FailureKind = 'unreachable' | 'timeout';

export interface FailureFacts {
  /** Sending the same request again cannot succeed (bad credentials, unknown record, invalid value). */
  permanent: boolean;
  /** The upstream asked us to wait this long before trying again (429 / Retry-After). */
  retryAfterMs?: number | undefined;
  /**
   * Whose rate limit was hit: `shared` — one every job spends (the Buyer Intelligence API): park the
   * whole queue; `tenant` — one CRM portal's or org's: only work for that tenant waits.
   */
  limit?: 'shared' | 'tenant' | undefined;
  /** The upstream's HTTP status, when it answered. */
  status?: number | undefined;
  /** The upstream's request id (for its support), when it sent one. */
  requestId?: string | undefined;
  /** How a call without an answer failed (see FailureKind); undefined when the upstream answered. */
  kind?: FailureKind | undefined;
  /**
   * What the credentials lack for this call (OAuth scopes, field access), as the upstream named it:
   * permanent until an admin grants it, and reported as such rather than retried.
   */
  missingPermissions?: readonly string[] | undefined;
  cause?: unknown;
}

export class IntegrationError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;
  readonly limit: 'shared' | 'tenant' | undefined;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly kind: FailureKind | undefined;
  readonly missingPermissions: readonly string[] | undefined;

  constructor(message: string, facts: FailureFacts) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.name = new.target.name;
    this.permanent = facts.permanent;
    this.retryAfterMs = facts.retryAfterMs;
    this.limit = facts.limit;
    this.status = facts.status;
    this.requestId = facts.requestId;
    this.kind = facts.kind;
    this.missingPermissions = facts.missingPermissions;
  }
}

export const isIntegrationError = (err: unknown): err is IntegrationError => err instanceof IntegrationError;

/** What a failure says about trying again: the facts a retry or give-up decision may read. */
export type RetryFacts = Pick<FailureFacts, 'permanent' | 'retryAfterMs' | 'status' | 'limit' | 'kind'>;

/**
 * The upstream answered 2xx and the call failed all the same: the answer broke the contract (not JSON,
 * a field missing). The same request would most likely get the same answer.
 */
export const answeredAgainstContract = (facts: RetryFacts): boolean =>
  facts.status !== undefined && facts.status >= 200 && facts.status < 300;

/**
 * The facts of any failure, or undefined when it states none. The root's errors carry them; an error
 * of another root that states the same fields (`permanent` a boolean: a delivery channel's, one
 * carried across the shared batch wire) is read the same way. A RangeError is the caller's own
 * mistake (a batch over the limit a connector names, a value out of bounds): no retry can fix it.
 * This is the one place that looks at a failure's class to decide; every retry and give-up reads
 * what this returns.
 */
export function failureFacts(err: unknown): RetryFacts | undefined {
  if (isIntegrationError(err))
    return {
      permanent: err.permanent,
      retryAfterMs: err.retryAfterMs,
      status: err.status,
      limit: err.limit,
      kind: err.kind,
    };
  if (err instanceof RangeError) return { permanent: true };
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { permanent?: unknown; retryAfterMs?: unknown; status?: unknown };
  if (typeof e.permanent !== 'boolean') return undefined;
  return {
    permanent: e.permanent,
    retryAfterMs: typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined,
    status: typeof e.status === 'number' ? e.status : undefined,
  };
}
