// The one error root. Every failure that crosses a module boundary says what a caller must know to
// act on it — may it ever succeed (`permanent`), when to try again (`retryAfterMs`), whose limit was
// hit (`limit`), the upstream's status and request id — so retry and give-up decisions read fields,
// never class names (a new upstream's errors are handled the day they extend this class).

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
  readonly missingPermissions: readonly string[] | undefined;

  constructor(message: string, facts: FailureFacts) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.name = new.target.name;
    this.permanent = facts.permanent;
    this.retryAfterMs = facts.retryAfterMs;
    this.limit = facts.limit;
    this.status = facts.status;
    this.requestId = facts.requestId;
    this.missingPermissions = facts.missingPermissions;
  }
}

export const isIntegrationError = (err: unknown): err is IntegrationError => err instanceof IntegrationError;
