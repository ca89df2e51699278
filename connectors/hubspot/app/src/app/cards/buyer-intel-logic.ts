// Card logic for the Buyer Intel app card, kept free of JSX and of `@hubspot/ui-extensions`
// so it can be unit-tested directly: API client, job polling, card state machine, formatting.
// The backend contract lives in the service (GET /api/accounts/..., POST /api/refresh,
// GET /api/jobs/:id, POST /api/accounts/.../confirm).

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
  status: MatchStatus;
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

export class BuyerIntelApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'BuyerIntelApiError';
    this.status = status;
    this.code = code;
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  fetch: FetchLike;
  /** HubSpot portal id (the tenant). */
  tenant: string;
  crm?: 'hubspot' | 'salesforce';
  timeoutMs?: number;
}

export interface BuyerIntelApi {
  getAccount(accountId: string): Promise<AccountMatch>;
  refresh(accountId: string): Promise<{ jobId: string; state?: string }>;
  getJob(jobId: string): Promise<Job>;
  confirm(accountId: string, buyerId: string): Promise<{ jobId: string }>;
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

  async function call<T>(path: string, method: 'GET' | 'POST', body?: Record<string, unknown>): Promise<T> {
    const res = await options.fetch(`${base}${path}`, body ? { method, body, timeout } : { method, timeout });
    const payload = await readJson(res);
    if (!res.ok) {
      const code = isRecord(payload) && typeof payload.error === 'string' ? payload.error : 'http_error';
      const message =
        isRecord(payload) && typeof payload.message === 'string'
          ? payload.message
          : `Buyer intel request failed (HTTP ${res.status})`;
      throw new BuyerIntelApiError(res.status, code, message);
    }
    return payload as T;
  }

  return {
    getAccount: (accountId) =>
      call<AccountMatch>(`/api/accounts/${enc(crm)}/${enc(accountId)}?tenant=${enc(options.tenant)}`, 'GET'),
    refresh: (accountId) => call('/api/refresh', 'POST', { crm, tenant: options.tenant, accountId }),
    getJob: (jobId) => call<Job>(`/api/jobs/${enc(jobId)}`, 'GET'),
    confirm: (accountId, buyerId) =>
      call(`/api/accounts/${enc(crm)}/${enc(accountId)}/confirm`, 'POST', {
        tenant: options.tenant,
        buyerId,
      }),
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
  throw new BuyerIntelApiError(408, 'poll_timeout', 'The refresh is still running; check back in a minute.');
}

// ---- Card state machine ---------------------------------------------------------------------

export type CardPhase = 'loading' | 'ready' | 'refreshing' | 'confirming' | 'error';

export interface DiffRow {
  property: string;
  attribute: string;
  from: string;
  to: string;
  action: string;
}

export interface JobOutcome {
  jobId: string;
  state: 'completed' | 'failed';
  status: string | null;
  rows: DiffRow[];
  notes: { key: string; title: string }[];
  failedReason: string | null;
}

export interface CardState {
  phase: CardPhase;
  account: AccountMatch | null;
  jobId: string | null;
  confirmingBuyerId: string | null;
  outcome: JobOutcome | null;
  error: string | null;
}

export type CardEvent =
  | { type: 'load' }
  | { type: 'loaded'; account: AccountMatch }
  | { type: 'failed'; message: string }
  | { type: 'refresh_requested' }
  | { type: 'confirm_requested'; buyerId: string }
  | { type: 'job_queued'; jobId: string }
  | { type: 'job_finished'; job: Job; account: AccountMatch | null };

export const initialCardState: CardState = {
  phase: 'loading',
  account: null,
  jobId: null,
  confirmingBuyerId: null,
  outcome: null,
  error: null,
};

export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map((v) => formatValue(v)).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function toOutcome(job: Job): JobOutcome {
  const result = job.result;
  return {
    jobId: job.id,
    state: job.state === 'failed' ? 'failed' : 'completed',
    status: result?.status ?? null,
    rows: (result?.fields ?? [])
      .filter((f) => f.action !== 'skip' && f.action !== 'unchanged')
      .map((f) => ({
        property: f.property,
        attribute: f.attribute,
        from: formatValue(f.from),
        to: formatValue(f.to),
        action: f.action,
      })),
    notes: result?.notes?.created ?? [],
    failedReason: job.state === 'failed' ? (job.failedReason ?? 'The refresh failed.') : null,
  };
}

export function cardReducer(state: CardState, event: CardEvent): CardState {
  switch (event.type) {
    case 'load':
      return { ...state, phase: 'loading', error: null };
    case 'loaded':
      return { ...state, phase: 'ready', account: event.account, error: null };
    case 'failed':
      return {
        ...state,
        phase: state.account ? 'ready' : 'error',
        error: event.message,
        confirmingBuyerId: null,
      };
    case 'refresh_requested':
      if (state.phase === 'refreshing' || state.phase === 'confirming') return state;
      return { ...state, phase: 'refreshing', outcome: null, error: null, jobId: null };
    case 'confirm_requested':
      if (state.phase === 'refreshing' || state.phase === 'confirming') return state;
      return { ...state, phase: 'confirming', confirmingBuyerId: event.buyerId, outcome: null, error: null };
    case 'job_queued':
      return { ...state, jobId: event.jobId };
    case 'job_finished':
      return {
        ...state,
        phase: 'ready',
        account: event.account ?? state.account,
        confirmingBuyerId: null,
        outcome: toOutcome(event.job),
        error: null,
      };
  }
}

export function isBusy(state: CardState): boolean {
  return state.phase === 'refreshing' || state.phase === 'confirming';
}

// ---- Formatting -----------------------------------------------------------------------------

export function formatConfidence(confidence: number | null): string {
  if (confidence === null || !Number.isFinite(confidence)) return '—';
  const pct = confidence <= 1 ? confidence * 100 : confidence;
  return `${Math.round(pct)}%`;
}

const STATUS_LABELS: Record<MatchStatus, string> = {
  enriched: 'Enriched',
  needs_review: 'Needs review',
  no_match: 'No match',
  error: 'Error',
  never: 'Not enriched yet',
};

export function statusLabel(status: MatchStatus): string {
  return STATUS_LABELS[status] ?? status;
}

export type TagVariant = 'default' | 'warning' | 'success' | 'error' | 'info';

export function statusVariant(status: MatchStatus): TagVariant {
  switch (status) {
    case 'enriched':
      return 'success';
    case 'needs_review':
      return 'warning';
    case 'error':
      return 'error';
    case 'no_match':
      return 'info';
    default:
      return 'default';
  }
}

export function formatDateTime(iso: string | null, locale = 'en-US', timeZone = 'UTC'): string {
  if (!iso) return 'Never';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(d);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Runs a queued job (refresh or confirm) to completion and reloads the account. */
export async function runJobFlow(
  api: BuyerIntelApi,
  accountId: string,
  start: () => Promise<{ jobId: string }>,
  dispatch: (event: CardEvent) => void,
  poll: PollOptions = {},
): Promise<void> {
  try {
    const { jobId } = await start();
    dispatch({ type: 'job_queued', jobId });
    const job = await pollJob(api, jobId, poll);
    const account = await api.getAccount(accountId).catch(() => null);
    dispatch({ type: 'job_finished', job, account });
  } catch (err) {
    dispatch({ type: 'failed', message: errorMessage(err) });
  }
}
