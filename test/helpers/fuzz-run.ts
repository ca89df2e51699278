// One fuzz run over every route kind (issue 45), shared by the CI test (test/api/no-500.test.ts, a
// seeded 10,000) and the exploring run (bench/fuzz.ts, 100,000 and more): the plans of every kind in
// fixed proportions, sent one at a time, counted per kind, route and status. `assert` stops at the
// first answer ≥ 500 and lets fast-check shrink it to a minimal plan; `explore` goes on and lists every
// one with the fast-check path that replays it (run index: seed + path give the same plan again).
import fc from 'fast-check';
import { inboundPlans } from './fuzz-inbound.ts';
import {
  type Auth,
  adminOperations,
  apiOperations,
  type FuzzIds,
  operationPlans,
  type Plan,
  type RouteKind,
} from './fuzz-routes.ts';
import type { Answer, FuzzTarget } from './fuzz-target.ts';

/** Shares of the runs: our API and admin pages as before, and each inbound route a tenth or so. */
export const KIND_WEIGHTS: Record<RouteKind, number> = {
  api: 36,
  admin: 14,
  'hubspot-signed': 8,
  'salesforce-signed': 8,
  'hubspot-webhook': 12,
  'salesforce-outbound': 12,
  'buyer-intel-webhook': 10,
};

export function fuzzArbitrary(
  ids: FuzzIds,
  kinds: RouteKind[] = Object.keys(KIND_WEIGHTS) as RouteKind[],
): fc.Arbitrary<Plan> {
  const inbound = inboundPlans(ids);
  const byKind: Record<RouteKind, () => fc.Arbitrary<Plan>> = {
    api: () => operationPlans('api', apiOperations(), ids, fc.constant<Auth>({ as: 'api-key' })),
    admin: () => operationPlans('admin', adminOperations(), ids, fc.constant<Auth>({ as: 'admin' })),
    'hubspot-signed': () => inbound.hubspotSigned,
    'salesforce-signed': () => inbound.salesforceSigned,
    'hubspot-webhook': () => inbound.hubspotWebhook,
    'salesforce-outbound': () => inbound.salesforceOutbound,
    'buyer-intel-webhook': () => inbound.providerWebhook,
  };
  return fc.oneof(...kinds.map((k) => ({ weight: KIND_WEIGHTS[k], arbitrary: byKind[k]() })));
}

export interface Finding {
  /** The fast-check path that replays it with the run's seed (FUZZ_PATH, --path). */
  path: string;
  plan: Plan;
  answer: Answer;
}

export interface FuzzStats {
  sent: number;
  /** kind → status → count. */
  byKind: Map<RouteKind, Map<number, number>>;
  /** kind → milliseconds spent waiting for its answers. */
  msByKind: Map<RouteKind, number>;
  /** route ("POST /api/refresh", per kind) → count. */
  byRoute: Map<string, number>;
  findings: Finding[];
}

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** Replay from this fast-check path (and, in `assert`, shrink from there). */
  path?: string | undefined;
  mode: 'assert' | 'explore';
  kinds?: RouteKind[];
  /** Called every `every` runs (progress of a long run). */
  progress?: { every: number; report: (stats: FuzzStats) => void };
}

/** An answer that counts as a failure: a 5xx, or none at all while the process is down. */
export const failed = (a: Answer): boolean => a.status >= 500;

/** A plan as a report line: no credentials are in it; long bodies are cut. */
export function describePlan(plan: Plan, answer?: Answer): string {
  const body =
    plan.body === undefined ? '' : ` body(${plan.body.length})=${JSON.stringify(plan.body.slice(0, 300))}`;
  const auth = JSON.stringify(plan.auth);
  const got = answer ? ` → ${answer.status} ${answer.text.slice(0, 300)}` : '';
  return `[${plan.kind}] ${plan.method} ${plan.path.slice(0, 300)} auth=${auth} headers=${JSON.stringify(plan.headers)}${body}${got}`;
}

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzStats> {
  const stats: FuzzStats = {
    sent: 0,
    byKind: new Map(),
    msByKind: new Map(),
    byRoute: new Map(),
    findings: [],
  };
  const start = options.path === undefined ? 0 : Number(options.path.split(':')[0]);
  let index = start;
  const property = fc.asyncProperty(fuzzArbitrary(target.ids, options.kinds), async (plan) => {
    const run = index++;
    const began = performance.now();
    let answer = await target.send(plan);
    stats.msByKind.set(plan.kind, (stats.msByKind.get(plan.kind) ?? 0) + performance.now() - began);
    // No answer (a reset, a timeout): a failure only when the process stopped serving.
    if (answer.status === 0 && !(await target.healthy()))
      answer = { status: 599, text: `down after: ${answer.text}` };
    stats.sent++;
    const statuses = stats.byKind.get(plan.kind) ?? new Map<number, number>();
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    stats.byKind.set(plan.kind, statuses);
    const route = `${plan.kind} ${plan.route}`;
    stats.byRoute.set(route, (stats.byRoute.get(route) ?? 0) + 1);
    if (options.progress && stats.sent % options.progress.every === 0) options.progress.report(stats);
    if (!failed(answer)) return;
    if (options.mode === 'assert') throw new Error(describePlan(plan, answer));
    stats.findings.push({ path: String(run), plan, answer });
  });
  const params = {
    seed: options.seed,
    numRuns: options.runs,
    ...(options.path ? { path: options.path } : {}),
  };
  if (options.mode === 'assert') await fc.assert(property, params);
  else {
    // Nothing fails in explore mode, so fast-check never shrinks: run n is path n.
    const result = await fc.check(property, { ...params, endOnFailure: true });
    if (result.failed) throw new Error(`the fuzz itself failed: ${String(result.errorInstance)}`);
  }
  return stats;
}

/** Answers of `kind` with a status in [lo, hi). */
export function count(stats: FuzzStats, kind: RouteKind, lo = 0, hi = 1000): number {
  let n = 0;
  for (const [status, c] of stats.byKind.get(kind) ?? []) if (status >= lo && status < hi) n += c;
  return n;
}
