// What a digest run needs, injected: the Buyer Intelligence client, a CRM connector per portal/org
// (the same CrmConnector interface the pipeline uses: no CRM SDK here), the ledgers (matched accounts),
// the database for watermarks (losing Redis must not repeat or skip a digest), Redis for the run lock,
// and the settings.
import type { Redis } from 'ioredis';
import { crmOf, isCrmKind } from '../../connectors/registry.ts';
import type { CrmConnector, CrmKind, NoteDraft, NoteResult } from '../../connectors/types.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import { IntegrationError } from '../shared/errors.ts';
import type { LogPort } from '../shared/log.ts';
import { releaseLocks, takeLock } from '../shared/redis-lock.ts';
import type { Ledgers } from '../write/ledgers.ts';
import type { OwnerChannels } from './owner-message.ts';
import type { DigestSettings } from './settings.ts';

export const DIGEST_KINDS = ['per-account', 'org-wide', 'per-owner'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

/** Field sets by scope, each change made at once (the database's digest_state). */
export interface DigestStateStore {
  get(scope: string): Promise<Record<string, string>>;
  /** Sets `set`'s fields and removes `drop`'s. */
  update(scope: string, set: Record<string, string>, drop?: readonly string[]): Promise<void>;
  /** Sets `field` only where the scope lacks it; true for the one caller that set it. */
  claim(scope: string, field: string, value: string): Promise<boolean>;
}

export interface DigestDeps {
  buyerIntel: Pick<BuyerIntelClient, 'listRecentBuyerSignals' | 'listTopRecentSignals'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  ledgers: Pick<Ledgers, 'matchedAccounts' | 'recordNotes'>;
  /** Each digest's watermark and delivery state, by scope (src/store/digest-state.ts). */
  state: DigestStateStore;
  /** For the run lock only. */
  redis: Redis;
  /** The install's key prefix; the lock is `<prefix>:digest:lock:<kind>`. */
  prefix: string;
  settings: DigestSettings;
  /**
   * Creates one note; pass the service's note batcher to share CRM calls with enrichment. Default:
   * `connectorFor(crm, tenant).createNotes([note])`.
   */
  createNote?: (
    crm: CrmKind,
    tenant: string,
    note: NoteDraft,
    origin?: { trigger?: string; buyerId?: string | null },
  ) => Promise<NoteResult>;
  now?: () => Date;
  /** Only this tenant's accounts and owners (`digest --now --tenant`); absent: every tenant's. */
  only?: { crm: CrmKind; tenant: string };
  /** How the per-owner digest reaches a rep (src/digest/owner-channels.ts); absent: no per-owner digest. */
  ownerChannels?: OwnerChannels;
  /** For the Slack webhook (tests); default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  log?: LogPort;
}

export interface DigestRunResult {
  kind: DigestKind;
  period: string;
  /** The run's scheduled time: the end of its window. */
  windowEnd: string;
  counts: {
    written: number;
    nothingNew: number;
    alreadyWritten: number;
    recovered: number;
    failed: number;
  };
  /** Up to 20 failures, for the operator. */
  failures: { account: string; reason: string; permanent: boolean }[];
  /** Org-wide only: where the digest went in this run. */
  delivered?: { note: boolean; slack: boolean };
}

/** Some accounts or deliveries failed in a way a retry can fix; the job retries (done ones are skipped). */
export class DigestIncompleteError extends IntegrationError {
  readonly result: DigestRunResult;
  constructor(message: string, result: DigestRunResult) {
    super(message, { permanent: false });
    this.result = result;
  }
}

/** Another run of the same digest holds the lock; once it ends, this one can run. */
export class DigestBusyError extends IntegrationError {
  constructor(kind: DigestKind) {
    super(`a ${kind} digest is already running`, { permanent: false });
  }
}

/** One run of a digest kind at a time across workers and the CLI (the one Redis lock, with a TTL). */
export async function withDigestLock<T>(
  deps: Pick<DigestDeps, 'redis' | 'prefix'>,
  kind: DigestKind,
  run: () => Promise<T>,
  ttlMs = 30 * 60_000,
): Promise<T> {
  const key = `${deps.prefix}:digest:lock:${kind}`;
  const owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  if (!(await takeLock(deps.redis, key, owner, ttlMs))) throw new DigestBusyError(kind);
  try {
    return await run();
  } finally {
    await releaseLocks(deps.redis, [key], owner);
  }
}

/** Whether an account of `crm`/`tenant` is in the run (`deps.only`), whatever form its tenant id is in. */
export function inScope(deps: Pick<DigestDeps, 'only'>, crm: string, tenant: string): boolean {
  if (!deps.only) return true;
  if (crm !== deps.only.crm) return false;
  const canonical = (id: string) => (isCrmKind(crm) ? crmOf(crm).tenantId(id) : undefined) ?? id;
  return canonical(tenant) === canonical(deps.only.tenant);
}

export function emptyResult(kind: DigestKind, period: string, windowEnd: Date): DigestRunResult {
  return {
    kind,
    period,
    windowEnd: windowEnd.toISOString(),
    counts: { written: 0, nothingNew: 0, alreadyWritten: 0, recovered: 0, failed: 0 },
    failures: [],
  };
}
