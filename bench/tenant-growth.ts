// A new tenant's first backfill as the store sees it, without the CRMs or the provider: chunk after
// chunk of accounts goes through the store's own statements in the order a chunk makes them (its
// outcomes and pending rows before, what we last wrote, the field writes and notes recorded pending and
// settled, the outcomes with the values a policy kept, the duplicates groups read and their marks
// remembered). Used by test/store/plans-on-growth.test.ts (the plans of those statements as the tenant
// grows) and bench/pg-growth.ts (their cost per account as it grows).
//
// Every statement goes through a Kysely whose `log` hands it to `onStatement`, so a caller sees the
// very SQL and parameters a backfill sends.
import { type CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { OutcomeRecord } from '../src/store/outcome-rows.ts';
import { Outcomes } from '../src/store/outcomes.ts';
import { ReviewRecords } from '../src/store/review.ts';
import type { Database } from '../src/store/schema.ts';
import { WriteHistory } from '../src/store/write-history.ts';
import type { FieldWriteEntry, PendingNoteEntry } from '../src/write/journal.ts';

/** The mapped fields a chunk writes per account (the default mapping's order of magnitude). */
const FIELDS = ['bis_buyer_type', 'bis_state', 'bis_population', 'bis_budget', 'bis_website', 'bis_phone'];

export interface TenantGrowth {
  /** Accounts of the tenant recorded so far. */
  readonly accounts: number;
  /** Records the next `n` accounts, one chunk at a time; resolves when they are all recorded. */
  grow(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface GrowthOptions {
  url: string;
  crm?: string;
  tenant: string;
  /** Accounts per chunk (a backfill chunk's accounts that reach the store together). */
  chunk?: number;
  /** Sees every statement the store sends, with its parameters, once it ran. */
  onStatement?: (query: CompiledQuery, ms: number) => void;
}

/**
 * Account n's buyer: three accounts a buyer (the bench's ratio), every tenth account alone on its own
 * buyer (so the outcome statement also counts some accounts again once committed).
 */
const buyerOf = (tenant: string, n: number) =>
  n % 10 === 9 ? `${tenant}-solo-${n}` : `${tenant}-buyer-${Math.floor(n / 3)}`;

export function tenantGrowth(options: GrowthOptions): TenantGrowth {
  const crm = options.crm ?? 'hubspot';
  const { tenant } = options;
  const chunkSize = options.chunk ?? 100;
  const pool = new pg.Pool({ connectionString: options.url, max: 2 });
  // A connection the server ends after close (the database dropped) must not crash the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') options.onStatement?.(event.query, event.queryDurationMillis);
    },
  });
  const outcomes = new Outcomes(db);
  const writes = new WriteHistory(db);
  const review = new ReviewRecords(db);
  let accounts = 0;

  async function chunk(first: number, n: number): Promise<void> {
    const numbers = Array.from({ length: n }, (_, i) => first + i);
    const ids = numbers.map((i) => `${tenant}-account-${i}`);
    const at = new Date();
    const origin = { runId: null, jobId: `chunk-${first}`, trigger: 'backfill' };
    // The chunk's start: outcomes before, rows left pending, what we last wrote.
    await outcomes.getMany(crm, tenant, ids);
    await writes.pendingOfMany(crm, tenant, ids);
    await writes.lastWrittenMany(crm, tenant, ids);
    // The field writes: recorded pending before the CRM call, settled with its answers.
    const fieldEntries: FieldWriteEntry[] = numbers.flatMap((i, k) =>
      FIELDS.map((field) => ({
        crm,
        tenant,
        accountId: ids[k] ?? '',
        ...origin,
        buyerId: buyerOf(tenant, i),
        field,
        attribute: field,
        kind: 'mapped' as const,
        policy: 'fill-empty',
        old: null,
        new: `${field} of ${i}`,
        decision: 'write',
        result: 'pending' as const,
        error: null,
        at,
      })),
    );
    const fieldIds = await writes.recordPendingFieldWrites(fieldEntries);
    await writes.settleFieldWrites(fieldIds.map((id) => ({ id, result: 'ok', error: null })));
    // One note an account, recorded pending, then created.
    const notes: PendingNoteEntry[] = numbers.map((i, k) => ({
      crm,
      tenant,
      accountId: ids[k] ?? '',
      ...origin,
      buyerId: buyerOf(tenant, i),
      dedupeKey: `signal-${i}`,
      title: `Signal ${i}`,
      at,
    }));
    const noteIds = await writes.recordPendingNotes(notes);
    await writes.settleNotes(noteIds.map((id, k) => ({ id, noteId: `${tenant}-note-${first + k}` })));
    // The outcomes, with one value a policy kept per account, each counting the others on its buyer.
    const batch = numbers.map((i, k) => {
      const accountId = ids[k] ?? '';
      const buyerId = buyerOf(tenant, i);
      const record: OutcomeRecord = {
        crm,
        tenant,
        accountId,
        accountName: `Account ${i}`,
        state: 'TX',
        status: 'enriched',
        matchedBy: 'name',
        buyerId,
        buyerName: `Buyer ${buyerId}`,
        buyerType: 'City',
        confidence: 0.9,
        reason: 'name match',
        candidates: [],
        detail: {
          source: null,
          fields: [],
          written: {},
          notes: { created: [], alreadyPresent: 0, overCap: 0 },
        },
        trigger: 'backfill',
        jobId: origin.jobId,
        at,
      };
      const kept: FieldWriteEntry = {
        ...(fieldEntries[k * FIELDS.length] as FieldWriteEntry),
        field: 'bis_owner_notes',
        decision: 'blocked-person-edit',
        result: 'not_sent',
      };
      return { record, kept: [kept] };
    });
    const sharing = await outcomes.recordManyCountingShared(batch);
    // The groups the accounts joined, read once, their marks remembered.
    const joined = batch.filter((b) => (sharing.get(b.record.accountId) ?? 0) > 0);
    if (joined.length) {
      const members = await review.membersOfMany(crm, tenant, {
        accountIds: joined.map((b) => b.record.accountId),
        buyerIds: [...new Set(joined.map((b) => b.record.buyerId ?? ''))],
        formerGroupsOf: [],
      });
      const firstOf = new Map<string, string>();
      for (const m of members) if (m.buyerId && !firstOf.has(m.buyerId)) firstOf.set(m.buyerId, m.accountId);
      await review.markDuplicates(
        crm,
        tenant,
        members.map((m) => ({
          accountId: m.accountId,
          duplicateOf:
            firstOf.get(m.buyerId ?? '') === m.accountId ? null : (firstOf.get(m.buyerId ?? '') ?? null),
        })),
      );
    }
  }

  return {
    get accounts() {
      return accounts;
    },
    async grow(n) {
      for (let done = 0; done < n; ) {
        const size = Math.min(chunkSize, n - done);
        await chunk(accounts, size);
        accounts += size;
        done += size;
      }
    },
    close: () => db.destroy(),
  };
}
