// What a CRM write leaves on the record, with the in-memory CRM, the embedded database and a real
// Redis: each batch's answers (ok or the CRM's error) with the field's previous value and the decision,
// the notes the CRM created with their ids, a history that cannot be written never failing a write the
// CRM took, and the `ours` memory read from the history once Redis has lost it.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryConnector, MEMORY_CRM } from '../../connectors/memory/connector.ts';
import { MemoryCrmStore } from '../../connectors/memory/store.ts';
import type { Repositories } from '../../src/store/store.ts';
import { Store } from '../../src/store/store.ts';
import { batchedWrites } from '../../src/write/batched-writes.ts';
import { Ledgers, type WrittenFieldsSource } from '../../src/write/ledgers.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const PREFIX = `test:write-history:${randomUUID()}`;
const crm = new MemoryCrmStore(`ws-${randomUUID().slice(0, 8)}`);
const connector = createMemoryConnector(crm);
const tenant = crm.workspace;
const T = new Date('2026-03-02T08:00:00.000Z');
let store: Store;
let repos: Repositories;
let redis: Redis;

beforeAll(async () => {
  store = new Store(await serviceDatabase());
  repos = await store.open();
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await connector.ensureFields([
    { name: 'population', label: 'Population', type: 'number', description: '' },
    { name: 'buyer_intel_status', label: 'Status', type: 'string', description: '' },
  ]);
});
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await store.close();
});

const history = (accountId: string) =>
  repos.writes.forAccount({ crm: MEMORY_CRM, tenant, accountId }).then((p) => p.events);

describe('batched writes on the record', () => {
  it('records each field of a batch with its old value, decision and the CRM’s answer', async () => {
    const a = crm.createAccount({ name: 'Town A' });
    const b = crm.createAccount({ name: 'Town B' });
    crm.accounts.get(a)?.fields.set('population', '90');
    const writes = batchedWrites({
      connector: () => connector,
      maxWaitMs: 20,
      journal: repos.writes,
      now: () => T,
    });
    const origin = { runId: '7', jobId: 'job-a', trigger: 'backfill', buyerId: 'buyer-1' };
    const [okA, refusedB] = await Promise.all([
      writes.writeAccount(
        MEMORY_CRM,
        tenant,
        { accountId: a, fields: { population: '100', buyer_intel_status: 'enriched' } },
        {
          ...origin,
          fields: {
            population: {
              old: '90',
              decision: 'write',
              kind: 'mapped',
              attribute: 'Population',
              policy: 'ours',
            },
            buyer_intel_status: { old: null, decision: 'provenance', kind: 'provenance' },
          },
        },
      ),
      // Not a number: the CRM refuses this account's write, and says why.
      writes.writeAccount(
        MEMORY_CRM,
        tenant,
        { accountId: b, fields: { population: 'many' } },
        { jobId: 'job-b' },
      ),
    ]);
    expect(okA.ok).toBe(true);
    expect(refusedB.ok).toBe(false);
    expect(
      (await history(a)).map((e) =>
        e.type === 'field' ? [e.field, e.old, e.new, e.decision, e.result] : [],
      ),
    ).toEqual([
      ['buyer_intel_status', null, 'enriched', 'provenance', 'ok'],
      ['population', '90', '100', 'write', 'ok'],
    ]);
    expect((await history(a))[1]).toMatchObject({
      runId: '7',
      jobId: 'job-a',
      trigger: 'backfill',
      buyerId: 'buyer-1',
      attribute: 'Population',
      policy: 'ours',
      kind: 'mapped',
      at: T,
    });
    expect(await history(b)).toEqual([
      expect.objectContaining({
        field: 'population',
        new: 'many',
        result: 'error',
        error: '400: population must be a number',
        jobId: 'job-b',
      }),
    ]);
  });

  it('records the notes the CRM created, with its ids, and none it refused', async () => {
    const a = crm.createAccount({ name: 'Town N' });
    const writes = batchedWrites({ connector: () => connector, maxWaitMs: 20, journal: repos.writes });
    const draft = (accountId: string, key: string) => ({
      accountId,
      dedupeKey: key,
      title: `Signal ${key}`,
      body: 'b',
      occurredAt: T.toISOString(),
    });
    const origin = { jobId: 'job-n', trigger: 'signal', buyerId: 'buyer-2' };
    const [made, missing] = await Promise.all([
      writes.createNote(MEMORY_CRM, tenant, draft(a, 'bi-buyer-2-r1'), origin),
      writes.createNote(MEMORY_CRM, tenant, draft('no-such-account', 'bi-buyer-2-r2'), origin),
    ]);
    expect(made.ok && missing.ok === false).toBe(true);
    expect(await history(a)).toEqual([
      expect.objectContaining({
        type: 'note',
        noteId: crm.notesOf(a)[0]?.id,
        dedupeKey: 'bi-buyer-2-r1',
        title: 'Signal bi-buyer-2-r1',
        trigger: 'signal',
        buyerId: 'buyer-2',
      }),
    ]);
    expect(await history('no-such-account')).toEqual([]);
  });

  it('a history that cannot be written is reported, and the CRM’s answer still reaches the job', async () => {
    const a = crm.createAccount({ name: 'Town F' });
    const reported: string[] = [];
    const writes = batchedWrites({
      connector: () => connector,
      maxWaitMs: 5,
      journal: {
        recordFieldWrites: async () => {
          throw new Error('database down');
        },
        recordNotes: async () => undefined,
      },
      onJournalError: (err, what) => reported.push(`${what}: ${(err as Error).message}`),
    });
    const result = await writes.writeAccount(MEMORY_CRM, tenant, {
      accountId: a,
      fields: { population: '5' },
    });
    expect(result.ok).toBe(true);
    expect(crm.accounts.get(a)?.fields.get('population')).toBe('5');
    expect(reported).toEqual(['1 field writes: database down']);
  });
});

describe('the `ours` memory', () => {
  const account = { crm: MEMORY_CRM, tenant, accountId: 'ours-1' };
  const entry = (field: string, value: string) => ({
    ...account,
    runId: null,
    jobId: 'j',
    trigger: 'webhook',
    buyerId: 'b',
    field,
    attribute: 'Population',
    kind: 'mapped' as const,
    policy: 'ours',
    old: null,
    new: value,
    decision: 'write',
    result: 'ok' as const,
    error: null,
    at: T,
  });

  /** The store's history, counting how often each read is asked for. */
  const countedHistory = () => {
    const reads = { one: 0, many: 0 };
    const history: WrittenFieldsSource = {
      lastWritten: (a) => {
        reads.one++;
        return repos.writes.lastWritten(a);
      },
      lastWrittenMany: (c, t, ids) => {
        reads.many++;
        return repos.writes.lastWrittenMany(c, t, ids);
      },
    };
    return { reads, history };
  };

  it('is the history’s: read from it each time, nothing of it kept in Redis', async () => {
    const { reads, history } = countedHistory();
    const ledgers = new Ledgers(redis, PREFIX, { history });
    await repos.writes.recordFieldWrites([entry('population', '100'), entry('revenue', '7')]);
    expect(await ledgers.writtenFields(account)).toEqual({ population: '100', revenue: '7' });
    // Written since, or undone since: the next read says so, whatever any process read before.
    await repos.writes.recordFieldWrites([entry('population', '120')]);
    expect(await ledgers.writtenFields(account)).toEqual({ population: '120', revenue: '7' });
    expect(reads.one).toBe(2);
    await ledgers.recordMatch(account, 'b');
    expect(await redis.keys(`${PREFIX}:fields:*`)).toEqual([]);
  });

  it('is loaded for a chunk of accounts in one read of the history, not one per account', async () => {
    const ids = ['chunk-1', 'chunk-2', 'chunk-3'];
    const { reads, history } = countedHistory();
    const ledgers = new Ledgers(redis, PREFIX, { history });
    await repos.writes.recordFieldWrites([
      { ...entry('population', '1'), accountId: 'chunk-1' },
      { ...entry('population', '2'), accountId: 'chunk-2' },
      { ...entry('population', '3'), accountId: 'chunk-2' },
    ]);
    await ledgers.preloadWrittenFields(MEMORY_CRM, tenant, ids);
    const fields = await Promise.all(
      ids.map((accountId) => ledgers.writtenFields({ ...account, accountId })),
    );
    expect(fields).toEqual([{ population: '1' }, { population: '3' }, {}]);
    expect(reads).toEqual({ one: 0, many: 1 });
    // Each account's read is taken once: a later job of the account reads the history again.
    expect(await ledgers.writtenFields({ ...account, accountId: 'chunk-2' })).toEqual({ population: '3' });
    expect(reads).toEqual({ one: 1, many: 1 });
  });

  it('an account its chunk handed off unread reads the history as it is when its own job runs', async () => {
    const handed = { ...account, accountId: 'handed-1' };
    const ledgers = new Ledgers(redis, PREFIX, { history: repos.writes });
    await repos.writes.recordFieldWrites([{ ...entry('population', '1'), accountId: 'handed-1' }]);
    await ledgers.preloadWrittenFields(MEMORY_CRM, tenant, ['handed-1']);
    // Its run failed before it read them; meanwhile the history moved on (an undo, another write).
    ledgers.forgetPreloaded(handed);
    await repos.writes.recordFieldWrites([{ ...entry('population', '2'), accountId: 'handed-1' }]);
    expect(await ledgers.writtenFields(handed)).toEqual({ population: '2' });
  });

  it('an account whose chunk read failed reads alone', async () => {
    let many = 0;
    const ledgers = new Ledgers(redis, PREFIX, {
      history: {
        lastWritten: (a) => repos.writes.lastWritten(a),
        lastWrittenMany: async () => {
          many++;
          throw new Error('database away');
        },
      },
    });
    await repos.writes.recordFieldWrites([{ ...entry('population', '7'), accountId: 'alone-1' }]);
    await ledgers.preloadWrittenFields(MEMORY_CRM, tenant, ['alone-1']);
    expect(many).toBe(1);
    expect(await ledgers.writtenFields({ ...account, accountId: 'alone-1' })).toEqual({ population: '7' });
  });
});
