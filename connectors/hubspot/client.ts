// The SDK client and the one wrapper every HubSpot call goes through: the shared call budget, a
// deadline, the onCall event, and the SDK's failure as a connector error (errors.ts). Retries are the
// caller's: the client runs with numberOfApiCallRetries 0 and no limiter. This is the only file that
// imports the SDK; the concern files (read, write, notes, fields) take a HubSpotCalls and derive the SDK
// types they need from it.

import { Client } from '@hubspot/api-client';
import { isIntegrationError } from '../../src/shared/errors.ts';
import { endpointOf } from '../../src/shared/network-cause.ts';
import { type CallBudget, CallBudgetTimeout } from '../call-budget.ts';
import { CrmRateLimitError } from '../types.ts';
import {
  HUBSPOT_API_BASE,
  HubSpotTransientError,
  isApiFailure,
  redactor,
  toConnectorError,
} from './errors.ts';
import { type HeaderBag, hubspotLimitReading } from './rate-limit-headers.ts';

export interface HubSpotCallEvent {
  /** The SDK method, e.g. `crm.companies.batchApi.update`. */
  operation: string;
  /** The HTTP status, or 'network' when no answer came (connection failure, timeout). */
  status: number | 'network';
  durationMs: number;
}

/** What the client needs of HubSpotConnectorOptions (connector.ts adds the tenant and the group). */
export interface HubSpotClientOptions {
  /** A private-app token or an OAuth access token. */
  accessToken: string;
  /** Replaces https://api.hubapi.com (the sandbox's URL in tests and demos). */
  basePath?: string;
  /** Deadline per HTTP call. Default 30 s. */
  fetchTimeoutMs?: number;
  /**
   * HubSpot's per-10-second limit, shared by every worker (see call-budget.ts): each call takes a slot
   * first, and every answer's X-HubSpot-RateLimit-* headers go back to it. A budget that stays full
   * ends the call with CrmRateLimitError, so the queue waits.
   */
  budget?: CallBudget;
  /** Called after every HTTP call (metrics, logs). Must not throw; errors are swallowed. */
  onCall?: (event: HubSpotCallEvent) => void;
  /** A call refused for a scope the token lacks (kept for doctor and the admin page). */
  onMissingScopes?: (operation: string, scopes: readonly string[]) => Promise<void>;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** HubSpot's batch limit for object writes and reads. */
export const HUBSPOT_BATCH_LIMIT = 100;

/** What the SDK's `…WithHttpInfo` methods resolve with. */
export interface HttpAnswer<T> {
  httpStatusCode: number;
  headers?: HeaderBag;
  data: T;
}

type Crm = Client['crm'];

/** One connector's SDK APIs and its call wrapper: what the concern files work with. */
export interface HubSpotCalls {
  readonly companies: Crm['companies'];
  readonly notes: Crm['objects']['notes'];
  readonly tasks: Crm['objects']['tasks'];
  readonly associations: Crm['associations']['v4'];
  readonly properties: Crm['properties'];
  readonly owners: Crm['owners'];
  /** One HTTP call: budget, deadline, onCall, and the SDK's failure as a connector error. */
  call<T>(operation: string, send: () => Promise<HttpAnswer<T>>): Promise<{ status: number; data: T }>;
  /** Removes the access token from a text HubSpot sent back (it may end up in a log). */
  redact(text: string): string;
  /**
   * The OAuth access token's metadata, its user among it (GET /oauth/v1/access-tokens/{token});
   * undefined for a private-app token, which belongs to no user (HubSpot's private-app tokens begin
   * `pat-`, as its private-apps guide shows them).
   */
  readonly tokenInfo?: () => Promise<HttpAnswer<TokenInfo>>;
  /**
   * The portal's account details (GET /account-info/v3/details, scope `oauth`): its UI domain among
   * them. The SDK has no API for it, so a plain fetch; a refusal rejects as the SDK's do.
   */
  readonly accountDetails: () => Promise<HttpAnswer<unknown>>;
}

type TokenInfo = Awaited<ReturnType<Client['oauth']['accessTokensApi']['getWithHttpInfo']>>['data'];

class DeadlineExceeded extends Error {}

export function createHubSpotCalls(options: HubSpotClientOptions): HubSpotCalls {
  const timeoutMs = options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const redact = redactor(options.accessToken);
  const basePath = options.basePath?.replace(/\/+$/, '');

  const client = new Client({
    accessToken: options.accessToken,
    ...(basePath ? { basePath } : {}),
    numberOfApiCallRetries: 0,
  });
  // The SDK keeps its decorators (retries, limiter) in a process-wide singleton and applies them when an
  // API object is first built. Build ours now, right after `new Client` set "none", so a Client created
  // elsewhere later cannot add retries or a limiter to this connector's calls.
  const companies = client.crm.companies;
  const notes = client.crm.objects.notes;
  const tasks = client.crm.objects.tasks;
  const associations = client.crm.associations.v4;
  const properties = client.crm.properties;
  const owners = client.crm.owners;
  const accessTokens = client.oauth.accessTokensApi;
  const tokenInfo = options.accessToken.startsWith('pat-')
    ? undefined
    : () => accessTokens.getWithHttpInfo(options.accessToken);

  const accountDetails = async (): Promise<HttpAnswer<unknown>> => {
    const res = await fetch(`${basePath ?? HUBSPOT_API_BASE}/account-info/v3/details`, {
      headers: { authorization: `Bearer ${options.accessToken}`, accept: 'application/json' },
    });
    const headers = Object.fromEntries(res.headers);
    const text = await res.text();
    let data: unknown = text;
    try {
      data = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, for the error's message.
    }
    // Shaped as the SDK's ApiException (code, body, headers), which toConnectorError reads.
    if (!res.ok)
      throw Object.assign(new Error(`HTTP ${res.status}`), { code: res.status, body: data, headers });
    return { httpStatusCode: res.status, headers, data };
  };

  const report = (event: HubSpotCallEvent) => {
    try {
      options.onCall?.(event);
    } catch {
      // A metrics hook must not turn a successful write into a failure.
    }
  };

  // Every answer, success or error, says what is left of the portal's limits.
  const observe = async (headers: HeaderBag) => {
    if (options.budget) await options.budget.observe(hubspotLimitReading(headers));
  };

  async function call<T>(
    operation: string,
    send: () => Promise<HttpAnswer<T>>,
  ): Promise<{ status: number; data: T }> {
    if (options.budget) {
      try {
        await options.budget.take();
      } catch (err) {
        if (err instanceof CallBudgetTimeout)
          throw new CrmRateLimitError(
            `HubSpot call budget full before ${operation}`,
            err.retryAfterMs,
            'CALL_BUDGET',
          );
        throw err;
      }
    }
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded()), timeoutMs);
      timer.unref();
    });
    try {
      const answer = await Promise.race([send(), deadline]);
      report({ operation, status: answer.httpStatusCode, durationMs: performance.now() - started });
      await observe(answer.headers);
      return { status: answer.httpStatusCode, data: answer.data };
    } catch (err) {
      const durationMs = performance.now() - started;
      report({ operation, status: isApiFailure(err) ? err.code : 'network', durationMs });
      if (isApiFailure(err)) await observe(err.headers);
      if (err instanceof DeadlineExceeded) {
        throw new HubSpotTransientError(
          `HubSpot ${operation} got no answer from ${endpointOf(basePath ?? HUBSPOT_API_BASE)}: timed out after ${timeoutMs} ms`,
          { operation },
        );
      }
      const failure = toConnectorError(operation, err, redact, basePath);
      const missing = isIntegrationError(failure) ? failure.missingPermissions : undefined;
      if (missing && options.onMissingScopes)
        await options.onMissingScopes(operation, missing).catch(() => undefined);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    companies,
    notes,
    tasks,
    associations,
    properties,
    owners,
    call,
    redact,
    accountDetails,
    ...(tokenInfo ? { tokenInfo } : {}),
  };
}
