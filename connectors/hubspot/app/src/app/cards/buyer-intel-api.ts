// The Buyer Intel service as the card sees it: the response shapes, a client over `hubspot.fetch`, and
// job polling. No JSX and no `@hubspot/ui-extensions`, so it is unit-tested directly. The contract lives
// in the service: GET /api/accounts/..., POST /api/refresh, GET /api/jobs/:id, POST
// /api/accounts/.../confirm|reject|clear|research, GET /api/accounts/.../history, and undo (undo-api.ts).
import { BuyerIntelApiError, failureMessage, unreachable } from './api-error.ts';
import { type UndoApi, undoMethods } from './undo-api.ts';

export { BuyerIntelApiError } from './api-error.ts';

export type MatchStatus = 'enriched' | 'needs_review' | 'no_match' | 'error' | 'never';
export type JobState =
  | 'waiting'
  | 'active'
  | 'completed'
  | 'failed'
  | 'delayed'
  | 'prioritized'
  | 'waiting-children';

export interface Candidate {
  buyerId: string;
  name: string;
  stateCode: string;
  type: string;
  score: number;
}

export interface AccountMatch {
  crm: string;
  tenant: string;
  accountId: string;
  /** The company's name and state as HubSpot holds them (what a re-search starts from). */
  name: string | null;
  state: string | null;
  status: MatchStatus;
  /** A person rejected it: it stays `no_match` and is never searched again until cleared. */
  pinned: boolean;
  buyerId: string | null;
  buyerName: string | null;
  confidence: number | null;
  explanation: string | null;
  lastEnrichedAt: string | null;
  candidates: Candidate[];
}

export interface FieldChange {
  property: string;
  attribute: string;
  from: unknown;
  to: unknown;
  action: string;
}

export interface JobResult {
  status: string;
  match?: Record<string, unknown> | null;
  fields: FieldChange[];
  notes: { created: { key: string; title: string }[] };
}

export interface Job {
  id: string;
  state: JobState;
  progress?: unknown;
  result?: JobResult;
  failedReason?: string;
}

/** One field of a change in the write history: what it held, what we sent, and what became of it. */
export interface HistoryField {
  field: string;
  attribute: string | null;
  kind: 'mapped' | 'provenance';
  old: string | null;
  new: string | null;
  /** write, blocked-edited-by-person, blocked-not-empty, provenance, … (the service's policy decision). */
  decision: string;
  /** `not_sent`: a policy kept the CRM's value. */
  result: 'ok' | 'error' | 'not_sent';
  error: string | null;
  at: string;
}

export interface HistoryNote {
  /** `removed` by an undo; absent from a service that only records created notes. */
  action?: 'created' | 'removed';
  noteId: string;
  dedupeKey: string;
  title: string | null;
  at: string;
}

/** What one job changed on the company, as GET /api/accounts/hubspot/:id/history groups it. */
export interface HistoryChange {
  crm: string;
  tenant: string;
  accountId: string;
  /** Its newest event. */
  at: string;
  runId: string | null;
  /** `actor`: who started the run (absent from an older service). */
  run: { kind: string; label: string; actor?: string | null } | null;
  jobId: string | null;
  trigger: string | null;
  buyerId: string | null;
  fields: HistoryField[];
  notes: HistoryNote[];
}

export interface HistoryPage {
  /** Newest first. */
  changes: HistoryChange[];
  /** The cursor of the older page (`after`); null on the last. */
  next: string | null;
}

/**
 * Events (fields and notes) asked for per page: a full enrichment writes about 35 fields, so one page
 * usually holds the few changes the card shows first.
 */
export const HISTORY_PAGE_EVENTS = 100;

/** What every review action answers: the job that applies the decision. */
export interface Queued {
  jobId: string;
}

/** The subset of `Response` the card reads. `hubspot.fetch` resolves to a real `Response`. */
export interface ResponseLike {
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}

/**
 * Same call shape as `hubspot.fetch`: the body is a plain object (HubSpot serialises it) and custom
 * headers are not used — HubSpot signs the request (X-HubSpot-Signature-v3) and appends
 * portalId/userId/userEmail/appId query parameters itself.
 */
export type FetchLike = (
  url: string,
  options?: { method?: 'GET' | 'POST'; body?: Record<string, unknown>; timeout?: number },
) => Promise<ResponseLike>;

export interface ApiClientOptions {
  baseUrl: string;
  fetch: FetchLike;
  /** HubSpot portal id (the tenant). */
  tenant: string;
  crm?: 'hubspot' | 'salesforce';
  timeoutMs?: number;
}

/** A re-search: the name and/or state to search with instead of the CRM's (at least one). */
export interface ResearchEdit {
  name?: string;
  state?: string;
}

export interface BuyerIntelApi extends UndoApi {
  getAccount(accountId: string): Promise<AccountMatch>;
  refresh(accountId: string): Promise<Queued & { state?: string }>;
  getJob(jobId: string): Promise<Job>;
  confirm(accountId: string, buyerId: string): Promise<Queued>;
  reject(accountId: string, reason: string): Promise<Queued>;
  clear(accountId: string): Promise<Queued>;
  research(accountId: string, edit: ResearchEdit): Promise<Queued>;
  /** A page of what the service changed on the company, newest first; `after` is a page's `next`. */
  getHistory(accountId: string, after?: string | null): Promise<HistoryPage>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readJson(res: ResponseLike): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

export function createApiClient(options: ApiClientOptions): BuyerIntelApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const crm = options.crm ?? 'hubspot';
  const timeout = options.timeoutMs ?? 15_000;
  const enc = encodeURIComponent;
  const tenant = options.tenant;

  async function call<T>(path: string, method: 'GET' | 'POST', body?: Record<string, unknown>): Promise<T> {
    const res = await options
      .fetch(`${base}${path}`, body ? { method, body, timeout } : { method, timeout })
      .catch(() => {
        throw unreachable();
      });
    const payload = await readJson(res);
    if (!res.ok) {
      const code = isRecord(payload) && typeof payload.error === 'string' ? payload.error : 'http_error';
      const message =
        isRecord(payload) && typeof payload.message === 'string'
          ? payload.message
          : failureMessage(res.status);
      throw new BuyerIntelApiError(res.status, code, message);
    }
    return payload as T;
  }
  const decide = (accountId: string, action: string, body: Record<string, unknown>) =>
    call<Queued>(`/api/accounts/${enc(crm)}/${enc(accountId)}/${action}`, 'POST', { tenant, ...body });

  return {
    ...undoMethods(call, crm, tenant),
    getAccount: (accountId) =>
      call<AccountMatch>(`/api/accounts/${enc(crm)}/${enc(accountId)}?tenant=${enc(tenant)}`, 'GET'),
    refresh: (accountId) => call('/api/refresh', 'POST', { crm, tenant, accountId }),
    getJob: (jobId) => call<Job>(`/api/jobs/${enc(jobId)}`, 'GET'),
    confirm: (accountId, buyerId) => decide(accountId, 'confirm', { buyerId }),
    reject: (accountId, reason) => decide(accountId, 'reject', { reason }),
    clear: (accountId) => decide(accountId, 'clear', {}),
    research: (accountId, edit) => decide(accountId, 'research', { ...edit }),
    getHistory: async (accountId, after) => {
      const page = await call<unknown>(
        `/api/accounts/${enc(crm)}/${enc(accountId)}/history?tenant=${enc(tenant)}&limit=${HISTORY_PAGE_EVENTS}${after ? `&after=${enc(after)}` : ''}`,
        'GET',
      );
      // A page the card cannot read is an error it shows, not a crash of the whole card.
      if (
        !isRecord(page) ||
        !Array.isArray(page.changes) ||
        !(page.next === null || typeof page.next === 'string')
      )
        throw new BuyerIntelApiError(
          502,
          'bad_response',
          'The buyer intel service sent a history the card cannot read.',
        );
      return page as unknown as HistoryPage;
    },
  };
}

export function isTerminal(state: JobState): boolean {
  return state === 'completed' || state === 'failed';
}

export interface PollOptions {
  intervalMs?: number;
  /** Give up after this many polls (the job keeps running server-side). */
  maxPolls?: number;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (job: Job) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls GET /api/jobs/:id until the job completes or fails. Throws on timeout. */
export async function pollJob(api: BuyerIntelApi, jobId: string, opts: PollOptions = {}): Promise<Job> {
  const intervalMs = opts.intervalMs ?? 1500;
  const maxPolls = opts.maxPolls ?? 40;
  const sleep = opts.sleep ?? defaultSleep;
  for (let i = 0; i < maxPolls; i++) {
    const job = await api.getJob(jobId);
    opts.onProgress?.(job);
    if (isTerminal(job.state)) return job;
    await sleep(intervalMs);
  }
  throw new BuyerIntelApiError(408, 'poll_timeout', 'The job is still running; check back in a minute.');
}
