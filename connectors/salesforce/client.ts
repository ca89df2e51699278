// The jsforce Connection and the one wrapper every Salesforce call goes through: it reports the call to
// `onCall` and turns a failure into a connector error (errors.ts) whose message carries no token. The
// concern files (read, write, notes, fields) take a SalesforceCalls; it never leaves this folder, so
// no jsforce type does either.

import { Connection } from 'jsforce';
import type { CallBudget } from '../call-budget.ts';
import type { WriteFailure } from '../types.ts';
import {
  errorCodeOf,
  noAnswer,
  type RecordFailureContext,
  recordFailureOf,
  redactor,
  type SalesforceRequestError,
  SalesforceTransientError,
  toConnectorError,
} from './errors.ts';
import { salesforceId18 } from './ids.ts';
import { salesforceLimitReading } from './limit-info.ts';
import {
  createSessionHandler,
  DEFAULT_LOGIN_URL,
  type SalesforceSession,
  type SalesforceSessionOptions,
} from './session.ts';

export interface SalesforceClientOptions extends SalesforceSessionOptions {
  /** https://yourdomain.my.salesforce.com (the sandbox's URL in tests and demos). */
  instanceUrl: string;
  accessToken?: string;
  refreshToken?: string;
  clientSecret: string;
  /** REST API version, e.g. '62.0' (jsforce's default, 50.0, is too old). */
  apiVersion: string;
  /** Called after every API call (metrics): the operation, 200 or Salesforce's errorCode, the time taken. */
  onCall?: (event: { operation: string; status: number | string; durationMs: number }) => void;
  /** The org's budget: every answer's Sforce-Limit-Info (the daily allocation) goes back to it. */
  budget?: CallBudget;
}

/** Salesforce's sObject Collections limit. */
export const SALESFORCE_COLLECTION_LIMIT = 200;
/**
 * A 15- or 18-character record id, an 18-character one with its case checksum right: the only thing
 * interpolated into SOQL or a URL. Shape alone is not enough: Salesforce refuses a whole query
 * (INVALID_QUERY_FILTER_OPERATOR "invalid ID field") for one id of the right shape and a wrong checksum.
 */
export const isRecordId = (id: string): boolean => salesforceId18(id) !== undefined;

/** A collection save result, read without trusting its shape. */
export interface SaveResultLike {
  id?: unknown;
  success?: unknown;
  errors?: unknown;
}

/** One connector's connection and call wrapper: what the concern files work with. */
export interface SalesforceCalls {
  readonly conn: Connection;
  /** One jsforce call, its failure as a connector error. */
  call: <T>(operation: string, send: () => PromiseLike<T>) => Promise<T>;
  /** Every row of a SOQL query, following nextRecordsUrl. */
  queryAll: (operation: string, soql: string, onRow: (row: Record<string, unknown>) => void) => Promise<void>;
  /** A per-record failure of a collection save (errors.ts, recordFailureOf). */
  recordFailure: (errors: unknown, subject: string, context?: RecordFailureContext) => WriteFailure;
  /** Removes the tokens and the client secret from a text that may end up in a log. */
  redact: (text: string) => string;
  /** The user the session signs in as, once a token response named it (its identity URL). */
  ownUserId: () => string | undefined;
}

/** The whole collection call was refused: every record fails with the reason. */
export const refusedFailure = (err: SalesforceRequestError): WriteFailure => ({
  status: 400,
  message: err.message,
  permanent: true,
});

/**
 * jsforce retries a refused, reset or unresolvable GET five times over about 16 s on its own; the job's
 * backoff already owns retrying, and a person at the CLI should hear "connection refused" at once. Its
 * retry of 420/429/5xx answers stays. jsforce has no per-connection option for this, so the one
 * transport this connection owns gets the option on every request. The same wrapper sees every
 * answer's headers (errors included), which jsforce's own `limitInfo` keeps only when well-formed.
 */
function watchTransport(conn: Connection, onHeaders: (headers: Record<string, unknown>) => void): void {
  type Options = { retry?: Record<string, unknown> };
  const transport = (
    conn as unknown as { _transport?: { httpRequest(req: unknown, options?: Options): unknown } }
  )._transport;
  if (!transport) return;
  const send = transport.httpRequest.bind(transport);
  transport.httpRequest = (req, options = {}) => {
    const pending = send(req, { ...options, retry: { ...options.retry, errorCodes: [] } });
    if (pending && typeof (pending as PromiseLike<unknown>).then === 'function')
      (pending as PromiseLike<{ headers?: unknown } | undefined>).then(
        (res) => {
          if (res && typeof res.headers === 'object' && res.headers)
            onHeaders(res.headers as Record<string, unknown>);
        },
        () => undefined,
      );
    return pending;
  };
}

export function createSalesforceCalls(options: SalesforceClientOptions): {
  calls: SalesforceCalls;
  session: SalesforceSession;
  /** Resolves once the stored session (if any) is installed; every operation waits for it. */
  loadStoredToken: () => Promise<void>;
} {
  const session = createSessionHandler(options, () => conn);
  const conn: Connection = new Connection({
    instanceUrl: options.instanceUrl.replace(/\/+$/, ''),
    ...(options.accessToken ? { accessToken: options.accessToken } : {}),
    ...(options.refreshToken ? { refreshToken: options.refreshToken } : {}),
    oauth2: {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      loginUrl: options.loginUrl ?? DEFAULT_LOGIN_URL,
    },
    version: options.apiVersion,
    // Our refreshFn for every flow: it adds the Redis lock where configured and classifies failures.
    ...(options.jwt || options.tokenStore || options.refreshToken
      ? { refreshFn: session.refreshFn as never }
      : {}),
  });
  conn.on('refresh', session.onRefresh);
  // The last reading still being stored: a call returns after it, so the next check sees it.
  let observing: Promise<void> = Promise.resolve();
  watchTransport(conn, (headers) => {
    const reading = salesforceLimitReading(headers['sforce-limit-info']);
    if (options.budget && reading.daily) observing = options.budget.observe(reading);
  });

  const redact = redactor(() => [
    options.accessToken,
    options.refreshToken,
    options.clientSecret,
    conn.accessToken,
    conn.refreshToken,
    session.rotatedRefreshToken(),
  ]);

  async function call<T>(operation: string, send: () => PromiseLike<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await send();
      report(operation, 200, started);
      return result;
    } catch (err) {
      const failure = connectorError(operation, err);
      report(operation, errorCodeOf(err) ?? 'network', started);
      throw failure;
    } finally {
      await observing;
    }
  }

  function report(operation: string, status: number | string, started: number): void {
    try {
      options.onCall?.({ operation, status, durationMs: performance.now() - started });
    } catch {
      // A metrics hook must not turn a successful call into a failure.
    }
  }

  function connectorError(operation: string, err: unknown): Error {
    const refreshFailure = session.transientRefreshFailure(err);
    if (refreshFailure) {
      // The grant goes to the login URL (the token endpoint), not to the instance.
      const network = noAnswer(options.loginUrl ?? DEFAULT_LOGIN_URL, refreshFailure);
      const reason = redact(refreshFailure.message).slice(0, 500);
      return new SalesforceTransientError(
        network
          ? `Salesforce session refresh for ${operation} ${network}`
          : `Salesforce session refresh for ${operation} failed: ${reason}`,
        { operation, cause: refreshFailure },
      );
    }
    return toConnectorError(
      operation,
      err,
      redact,
      conn.limitInfo.apiUsage,
      conn.instanceUrl || options.instanceUrl,
    );
  }

  async function queryAll(
    operation: string,
    soql: string,
    onRow: (row: Record<string, unknown>) => void,
  ): Promise<void> {
    type Row = Record<string, unknown>;
    let page = await call(operation, () => conn.query<Row>(soql, { autoFetch: false }));
    for (;;) {
      for (const row of page.records) onRow(row);
      const next = page.nextRecordsUrl;
      if (page.done || !next) break;
      page = await call('queryMore', () => conn.queryMore<Row>(next));
    }
  }

  const recordFailure = (errors: unknown, subject: string, context?: RecordFailureContext): WriteFailure =>
    recordFailureOf(errors, subject, redact, context);

  return {
    calls: { conn, call, queryAll, recordFailure, redact, ownUserId: session.ownUserId },
    session: {
      accessToken: session.accessToken,
      reauthenticate: () =>
        session
          .reauthenticate()
          .catch((err: unknown) => Promise.reject(connectorError('session.refresh', err))),
    },
    loadStoredToken: session.loadStoredToken,
  };
}
