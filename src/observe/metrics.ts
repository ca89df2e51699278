// Prometheus metrics (prom-client) in one registry per service, so tests and several services in one
// process never share counters. Queue gauges are read from Redis at scrape time; the rest is counted
// where it happens (upstream call hooks, worker events, enrichment results).
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BudgetState } from '../../connectors/limits.ts';
import type { EnrichResult } from '../enrich/types.ts';
import { type RedisMemory, readRedisMemory } from './redis-memory.ts';
import type { UsageCounts } from './usage.ts';

const JOB_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed'] as const;

/** What each CRM tenant's last answer said is left of its limits (Redis, written by every worker). */
const LIMIT_GAUGES = [
  [
    'bis_crm_window_remaining',
    'Calls left in the CRM’s short rolling window (HubSpot’s 10 s) at its last answer',
    (s: BudgetState) => s.window?.remaining,
  ],
  ['bis_crm_window_max', 'Calls the CRM’s short rolling window allows', (s: BudgetState) => s.window?.max],
  [
    'bis_crm_daily_remaining',
    'Calls left of the CRM tenant’s daily allocation at its last answer',
    (s: BudgetState) => s.daily?.remaining,
  ],
  ['bis_crm_daily_limit', 'The CRM tenant’s daily API allocation', (s: BudgetState) => s.daily?.limit],
] as const;

export class Metrics {
  readonly registry = new Registry();
  readonly upstreamCalls = new Counter({
    name: 'bis_upstream_calls_total',
    help: 'HTTP calls to upstream APIs by API, operation and status (or network/timeout)',
    labelNames: ['api', 'operation', 'status'] as const,
    registers: [this.registry],
  });
  readonly upstreamDuration = new Histogram({
    name: 'bis_upstream_call_duration_seconds',
    help: 'Duration of upstream API calls',
    labelNames: ['api'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'bis_job_duration_seconds',
    help: 'Time a job spent processing, by queue and outcome',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly rateLimitWaits = new Counter({
    name: 'bis_rate_limit_waits_total',
    help: 'Times a queue was parked because an upstream answered 429 (or its equivalent)',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly rateLimitWaitSeconds = new Counter({
    name: 'bis_rate_limit_wait_seconds_total',
    help: 'Seconds queues were parked for upstream rate limits',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly providerRate = new Gauge({
    name: 'bis_buyer_intel_rate_per_second',
    help: 'The Buyer Intelligence pace every worker keeps now: the configured rate, or less while the provider answers 429',
    registers: [this.registry],
  });
  readonly providerWaitSeconds = new Counter({
    name: 'bis_buyer_intel_pace_wait_seconds_total',
    help: 'Seconds this process’s Buyer Intelligence requests waited for their slot of the shared pace',
    registers: [this.registry],
  });
  readonly matchOutcomes = new Counter({
    name: 'bis_match_outcomes_total',
    help: 'Enrichment results by CRM and status (enriched, needs_review, no_match)',
    labelNames: ['crm', 'status'] as const,
    registers: [this.registry],
  });
  readonly fieldsWritten = new Counter({
    name: 'bis_fields_written_total',
    help: 'CRM fields written by enrichment (mapped and match fields)',
    labelNames: ['crm'] as const,
    registers: [this.registry],
  });
  readonly notesCreated = new Counter({
    name: 'bis_notes_created_total',
    help: 'Activity notes created in the CRM',
    labelNames: ['crm'] as const,
    registers: [this.registry],
  });

  constructor(queues: () => Queue[]) {
    const registry = this.registry;
    new Gauge({
      name: 'bis_jobs',
      help: 'Jobs by queue and state (read from Redis at scrape time)',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const queue of queues()) {
          const counts = await queue.getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
    // One read of the tenants' limits per scrape, shared by the four gauges prom-client collects at once.
    let pending: { at: number; states: Promise<BudgetState[]> } | undefined;
    const limits = () => {
      const source = this.#crmLimits;
      if (!source) return Promise.resolve([]);
      if (!pending || Date.now() - pending.at > 500)
        pending = { at: Date.now(), states: source().catch(() => []) };
      return pending.states;
    };
    for (const [name, help, read] of LIMIT_GAUGES)
      new Gauge({
        name,
        help,
        labelNames: ['crm', 'tenant'] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const state of await limits()) {
            const value = read(state);
            if (value !== undefined) this.set({ crm: state.crm, tenant: state.tenant }, value);
          }
        },
      });
    this.#registerRedisMemory(queues);
    collectDefaultMetrics({ register: registry, prefix: 'bis_' });
  }

  /** Redis's memory as INFO says it, through the first queue's connection (redis-memory.ts). */
  #registerRedisMemory(queues: () => Queue[]): void {
    let pending: { at: number; memory: Promise<RedisMemory | undefined> } | undefined;
    const memory = () => {
      const queue = queues()[0];
      if (!queue) return Promise.resolve(undefined);
      if (!pending || Date.now() - pending.at > 500)
        pending = {
          at: Date.now(),
          memory: queue
            .getBackend()
            .client // BullMQ's Redis backend is an ioredis client (or cluster) underneath.
            .then((client) => readRedisMemory(client as unknown as Redis))
            .catch(() => undefined),
        };
      return pending.memory;
    };
    const gauges = [
      [
        'bis_redis_used_memory_bytes',
        'Memory Redis uses (INFO used_memory; on a cluster, the fullest master)',
        'usedBytes',
      ],
      ['bis_redis_maxmemory_bytes', 'Redis’s maxmemory (0: no limit) of the same node', 'maxBytes'],
    ] as const;
    for (const [name, help, field] of gauges)
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.reset();
          const m = await memory();
          if (m) this.set(m[field]);
        },
      });
    new Counter({
      name: 'bis_redis_evicted_keys_total',
      help: 'Keys Redis evicted since it started (INFO evicted_keys): under noeviction, always 0',
      registers: [this.registry],
      async collect() {
        this.reset();
        const m = await memory();
        if (m) this.inc(m.evictedKeys);
      },
    });
  }

  #crmLimits: (() => Promise<BudgetState[]>) | undefined;

  /** Where the CRM tenants' limits are read at scrape time (limits.ts: readBudgets). */
  readCrmLimitsFrom(source: () => Promise<BudgetState[]>): void {
    this.#crmLimits = source;
  }

  #usage: UsageCounts | undefined;

  /** Where the counts the dashboard shows across processes go too (usage.ts). */
  shareUsageIn(usage: UsageCounts): void {
    this.#usage = usage;
  }

  recordCall(api: string, operation: string, status: number | string, durationMs: number): void {
    this.upstreamCalls.inc({ api, operation, status: String(status) });
    this.upstreamDuration.observe({ api }, durationMs / 1000);
    this.#usage?.add(`calls:${api}`);
    if (String(status) === '429') this.#usage?.add(`429:${api}`);
  }

  /** A Buyer Intelligence request waited `ms` for its slot of the shared pace. */
  recordProviderWait(ms: number): void {
    this.providerWaitSeconds.inc(ms / 1000);
    if (ms > 0) {
      this.#usage?.add('waits:buyer_intel');
      this.#usage?.add('wait-ms:buyer_intel', ms);
    }
  }

  /** A queue was parked `delayMs` because an upstream answered 429 (or its equivalent). */
  recordParked(queue: string, delayMs: number): void {
    this.rateLimitWaits.inc({ queue });
    this.rateLimitWaitSeconds.inc({ queue }, delayMs / 1000);
    this.#usage?.add(`parked:${queue}`);
    this.#usage?.add(`parked-ms:${queue}`, delayMs);
  }

  recordResult(result: EnrichResult): void {
    const crm = result.account.crm;
    this.matchOutcomes.inc({ crm, status: result.status });
    const written = Object.keys(result.written).length;
    if (written) this.fieldsWritten.inc({ crm }, written);
    if (result.notes.created.length) this.notesCreated.inc({ crm }, result.notes.created.length);
  }
}
