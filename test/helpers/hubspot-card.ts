// The HubSpot card in HubSpot's own test renderer (`@hubspot/ui-extensions/testing`) with a fake
// `hubspot.fetch` that answers as the service does, records every call, and can be told to refuse,
// fail, or hold an answer back (to look at the card while a request runs).
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { createElement } from 'react';
import { vi } from 'vitest';
import { BuyerIntelCard } from '../../connectors/hubspot/app/src/app/cards/BuyerIntelCard.tsx';
import type {
  AccountMatch,
  FetchLike,
  Job,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import type { UndoPlan, UndoRun } from '../../connectors/hubspot/app/src/app/cards/undo-api.ts';

export const BASE = 'https://buyer-intel.test';
export const context = { portal: { id: 4242 }, crm: { objectId: 901 } };
/** Polls without waiting: the fake answers at once. */
export const poll = { intervalMs: 0, sleep: async () => {} };

export function account(overrides: Partial<AccountMatch> = {}): AccountMatch {
  return {
    crm: 'hubspot',
    tenant: '4242',
    accountId: '901',
    name: 'Springfield',
    state: 'IL',
    status: 'enriched',
    pinned: false,
    buyerId: 'b-1',
    buyerName: 'City of Springfield',
    confidence: 0.87,
    explanation: 'Domain and city match',
    lastEnrichedAt: '2026-11-20T10:00:00Z',
    candidates: [],
    ...overrides,
  };
}

export const completedJob: Job = {
  id: 'job-1',
  state: 'completed',
  progress: 100,
  result: {
    status: 'enriched',
    match: { buyerId: 'b-1' },
    fields: [
      { property: 'buyer_type', attribute: 'type', from: null, to: 'city', action: 'set' },
      { property: 'buyer_population', attribute: 'population', from: 160000, to: 167000, action: 'update' },
      { property: 'buyer_state', attribute: 'stateCode', from: 'IL', to: 'IL', action: 'unchanged' },
    ],
    notes: { created: [{ key: 'rfp-123', title: 'RFP: Road resurfacing 2027' }] },
  },
};

export interface Call {
  url: string;
  method: string;
  body: Record<string, unknown> | undefined;
}

export type Decision = 'confirm' | 'reject' | 'clear' | 'research';

/** An answer: a status and a JSON body, `failed` (hubspot.fetch rejects), or a body that is no JSON. */
export type Answer = { status: number; body: unknown } | { failed: true } | { status: number; text: string };

export interface FakeRoutes {
  /** The company (GET /api/accounts/hubspot/:id); an Answer to refuse or fail the read. */
  account: () => AccountMatch | Answer;
  jobs?: Job[];
  refresh?: Answer;
  /** A refusal per review action (otherwise 202 with job-1). */
  refused?: Partial<Record<Decision, Answer>>;
  /** POST /api/undo: the dry run's answer, and the real undo's (default 202 with run 77). */
  undoPlan?: () => UndoPlan | Answer;
  undo?: () => Answer;
  /** GET /api/runs/:id answers these in turn, the last one again. */
  runs?: UndoRun[];
  /** Job polls wait for this (to look at the card while a job runs). */
  gate?: Promise<void>;
  /** The undo's requests (dry run, undo, run polls) wait for this. */
  undoGate?: Promise<void>;
}

const isAnswer = (v: unknown): v is Answer =>
  typeof v === 'object' && v !== null && ('failed' in v || ('status' in v && ('body' in v || 'text' in v)));

/** A fake `hubspot.fetch`: routes on method + path, records every call. */
export function fakeFetch(routes: FakeRoutes) {
  const calls: Call[] = [];
  const jobs = [...(routes.jobs ?? [])];
  const runs = [...(routes.runs ?? [])];
  const reply = (answer: Answer) => {
    if ('failed' in answer) throw new TypeError('Failed to fetch');
    const ok = answer.status >= 200 && answer.status < 300;
    const json = 'text' in answer ? async () => JSON.parse(answer.text) as unknown : async () => answer.body;
    return { ok, status: answer.status, json };
  };
  const fetch: FetchLike = async (url, options) => {
    const method = options?.method ?? 'GET';
    calls.push({ url, method, body: options?.body });
    const path = new URL(url).pathname;
    // The "Last changes" section (test/ui/hubspot-card-history.unit.test.ts): nothing written yet.
    if (method === 'GET' && path.endsWith('/history'))
      return reply({ status: 200, body: { changes: [], next: null } });
    if (method === 'GET' && path.startsWith('/api/accounts/')) {
      const answer = routes.account();
      return reply(isAnswer(answer) ? answer : { status: 200, body: answer });
    }
    if (method === 'POST' && path === '/api/refresh')
      return reply(routes.refresh ?? { status: 202, body: { jobId: 'job-1', state: 'waiting' } });
    const decision = /\/(confirm|reject|clear|research)$/.exec(path)?.[1] as Decision | undefined;
    if (method === 'POST' && decision)
      return reply(routes.refused?.[decision] ?? { status: 202, body: { jobId: 'job-1', runId: '7' } });
    if (method === 'GET' && path.startsWith('/api/jobs/')) {
      await routes.gate;
      const next = jobs.length > 1 ? jobs.shift() : jobs[0];
      return reply(
        next
          ? { status: 200, body: next }
          : { status: 404, body: { error: 'not_found', message: 'no such job' } },
      );
    }
    if (method === 'POST' && path === '/api/undo') {
      await routes.undoGate;
      if (options?.body?.dryRun === true) {
        const plan = routes.undoPlan?.() ?? { status: 404, body: { error: 'not_found', message: 'no plan' } };
        return reply(isAnswer(plan) ? plan : { status: 200, body: plan });
      }
      return reply(
        routes.undo?.() ?? {
          status: 202,
          body: { runId: '77', jobId: 'undo-77', resumed: false, what: 'x', remarks: [] },
        },
      );
    }
    if (method === 'GET' && path.startsWith('/api/runs/')) {
      await routes.undoGate;
      const next = runs.length > 1 ? runs.shift() : runs[0];
      return reply(
        next ? { status: 200, body: next } : { status: 404, body: { error: 'not_found', message: 'no run' } },
      );
    }
    return reply({ status: 404, body: { error: 'not_found', message: `${method} ${path}` } });
  };
  return {
    fetch,
    calls,
    posted: (action: Decision) => calls.filter((c) => c.url.endsWith(`/${action}`)),
    undoCalls: () => calls.filter((c) => c.url === `${BASE}/api/undo`),
    historyReads: () => calls.filter((c) => new URL(c.url).pathname.endsWith('/history')).length,
  };
}

/** Types into a field as a person does (the package types `trigger`'s argument as the handler itself). */
export function typeInto(field: { trigger: unknown }, value: string): void {
  (field.trigger as (event: string, arg: string) => void)('onInput', value);
}

/** A promise held closed until `open()`: a request waits on it while the test looks at the card. */
export function gate() {
  let open = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
}

/** How long a test waits for the card to show something. */
const WAIT_MS = 10_000;

/**
 * The renderer with a waitFor that polls. The renderer's own runs its check only when the card renders
 * again, so a check on what the card fetched (no render follows a request still on its way) could miss
 * the moment and wait forever; and its 1 s default is a wall-clock bound a busy machine can miss.
 */
export function patient<R extends ReturnType<typeof createRenderer>>(renderer: R): R {
  const waitFor: R['waitFor'] = async (check, options) => {
    await vi.waitFor(check, { timeout: options?.timeoutInMs ?? WAIT_MS, interval: 5 });
  };
  return { ...renderer, waitFor };
}

export function renderCard(fetch: FetchLike) {
  const renderer = createRenderer('crm.record.tab');
  renderer.render(createElement(BuyerIntelCard, { context, fetch, baseUrl: BASE, poll }));
  return patient(renderer);
}
