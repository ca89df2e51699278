// HTTP transport of the Buyer Intelligence client: bearer auth, JSON bodies, a timeout per attempt,
// retries by the one executor (src/shared/retry.ts) with the client's plan (retry.ts), the client-side token bucket, and typed errors. It reads no
// environment variables; everything comes in through options.
import type { z } from 'zod';
import { formatPath } from '../shared/format-path.ts';
import { describeNetworkFailure, endpointOf } from '../shared/network-cause.ts';
import { retrying } from '../shared/retry.ts';
import { parseRetryAfter } from '../shared/retry-after.ts';
import {
  type BuyerIntelError,
  ConnectionError,
  errorForStatus,
  ResponseValidationError,
  TimeoutError,
} from './errors.ts';
import type { HttpAnswer, HttpCall } from './http.ts';
import { type RetryPolicy, requestRetryPlan } from './retry.ts';
import type { RateGate } from './shared-rate.ts';

export type HttpMethod = 'GET' | 'PUT' | 'PATCH' | 'POST';

export interface AttemptEvent {
  operation: string;
  method: HttpMethod;
  attempt: number;
  /** HTTP status, or `network` / `timeout` when none came back. */
  outcome: number | 'network' | 'timeout';
  durationMs: number;
  requestId: string | undefined;
}

export interface TransportOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Paces attempts: this process's token bucket, or the rate shared by every worker (shared-rate.ts). */
  limiter: RateGate | null;
  /** The HTTP call (http.ts): undici's request(), or a fetch. */
  fetch: HttpCall;
  userAgent: string;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onAttempt?: ((event: AttemptEvent) => void) | undefined;
}

export interface RequestSpec<S extends z.ZodType> {
  operation: string;
  method: HttpMethod;
  /** Path below the base URL, already percent-encoded. */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  schema: S;
  signal?: AbortSignal | undefined;
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid'];

function requestIdOf(headers: HttpAnswer['headers']): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const v = headers.get(name);
    if (v) return v;
  }
  return undefined;
}

async function readBody(res: HttpAnswer): Promise<{ parsed: unknown; isJson: boolean; text: string }> {
  const text = await res.text();
  if (!text) return { parsed: undefined, isJson: false, text };
  try {
    return { parsed: JSON.parse(text), isJson: true, text };
  } catch {
    return { parsed: text, isJson: false, text };
  }
}

export class Transport {
  readonly #opts: TransportOptions;
  readonly #base: string;

  constructor(options: TransportOptions) {
    this.#opts = options;
    this.#base = options.baseUrl.replace(/\/+$/, '');
  }

  async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const { retry, sleep, random } = this.#opts;
    return retrying(
      async (attempt) => {
        const result = await this.#attempt(spec, attempt);
        if (result.ok) return result.value;
        throw result.error;
      },
      { ...requestRetryPlan(retry), sleep, random, signal: spec.signal },
    );
  }

  async #attempt<S extends z.ZodType>(
    spec: RequestSpec<S>,
    attempt: number,
  ): Promise<{ ok: true; value: z.output<S> } | { ok: false; error: BuyerIntelError }> {
    const { operation, method } = spec;
    const opts = this.#opts;
    const reservedAt = opts.limiter ? await opts.limiter.take(spec.signal) : undefined;

    const url = `${this.#base}${spec.path}${spec.query && [...spec.query].length ? `?${spec.query}` : ''}`;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${opts.token}`,
      Accept: 'application/json',
      'User-Agent': opts.userAgent,
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const started = performance.now();
    const report = (outcome: AttemptEvent['outcome'], requestId?: string) =>
      opts.onAttempt?.({
        operation,
        method,
        attempt,
        outcome,
        durationMs: performance.now() - started,
        requestId,
      });

    let res: HttpAnswer;
    let read: Awaited<ReturnType<typeof readBody>>;
    try {
      res = await opts.fetch(url, { method, headers, body, signal });
      read = await readBody(res);
    } catch (err) {
      // The caller's own abort is not ours to retry.
      if (spec.signal?.aborted) throw spec.signal.reason;
      if (timeout.aborted) {
        report('timeout');
        return {
          ok: false,
          error: new TimeoutError(
            `${operation}: no answer from the Buyer Intelligence API at ${endpointOf(this.#base)} within ${opts.timeoutMs} ms`,
            { operation },
          ),
        };
      }
      report('network');
      const where =
        describeNetworkFailure(this.#base, err) ??
        `${endpointOf(this.#base)}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
      return {
        ok: false,
        error: new ConnectionError(`${operation}: could not reach the Buyer Intelligence API at ${where}`, {
          operation,
          cause: err,
        }),
      };
    }

    const requestId = requestIdOf(res.headers);
    report(res.status, requestId);

    if (res.status >= 200 && res.status < 300) {
      if (!read.isJson) {
        return {
          ok: false,
          error: new ResponseValidationError(
            `${operation}: the response is not JSON (content-type ${res.headers.get('content-type') ?? 'none'})`,
            { operation, status: res.status, requestId, body: read.text.slice(0, 500), path: '(root)' },
          ),
        };
      }
      const parsed = spec.schema.safeParse(read.parsed);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = formatPath(issue?.path ?? []);
        return {
          ok: false,
          error: new ResponseValidationError(
            `${operation}: unexpected response at ${path}: ${issue?.message ?? 'invalid'}`,
            { operation, status: res.status, requestId, body: read.parsed, path },
          ),
        };
      }
      return { ok: true, value: parsed.data };
    }

    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    if (res.status === 429) await opts.limiter?.throttled?.(retryAfterMs, reservedAt);
    const error = errorForStatus(res.status, {
      operation,
      requestId,
      body: read.parsed,
      statusText: res.statusText,
      retryAfterMs,
    });
    return { ok: false, error };
  }
}
