// One note, however many attempts create it: two worker processes share note batches through Redis
// (src/batch/shared.ts), as in the service. The first attempt's create is in flight (a CRM call the
// test holds open) when a second attempt of the same job — a retry that asked the CRM before the
// first landed, as after a SIGKILL — creates the same note. Without a claim per note both reach the
// CRM (the 4-worker test found 10 of 2,000 accounts with a note twice); with it the second is refused
// for now (transient: its job retries, asks the CRM and finds the note).
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { CrmConnector, NoteDraft } from '../../connectors/types.ts';
import type { OpenChannels } from '../../src/batch/channel.ts';
import { sharedChannels } from '../../src/batch/shared.ts';
import { batchedWrites } from '../../src/write/batched-writes.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { NoteClaims } from '../../src/write/note-claims.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/reliability-env.ts';

const prefix = testPrefix('test-note-claims');
const connections: Redis[] = [];
const opened: OpenChannels[] = [];
const crm = memoryCrm(`claims-${randomUUID().slice(0, 8)}`);
const accountId = crm.createAccount({ name: 'City of Springfield', state: 'IL' });
const TENANT = 'tenant-1';

function connect(): Redis {
  const redis = testRedis();
  connections.push(redis);
  return redis;
}

/** The CRM's note creates; the first `held` calls wait until the test lets them through. */
function heldCreates(maxNoteBatch: number, held = 1) {
  const inner = createMemoryConnector(crm);
  const calls: { notes: readonly NoteDraft[]; release(): void }[] = [];
  const connector: CrmConnector = {
    ...inner,
    maxNoteBatch,
    createNotes: async (notes) => {
      if (calls.length < held) await new Promise<void>((release) => calls.push({ notes, release }));
      else calls.push({ notes, release: () => {} });
      return inner.createNotes(notes);
    },
  };
  return { calls, connector };
}

/** One worker process: its own connections, shared batches and note claims (as src/service/core.ts). */
function workerProcess(id: string, connector: CrmConnector) {
  const redis = connect();
  const channels = sharedChannels({ redis, connectReplies: connect, prefix, processId: id });
  opened.push(channels);
  const ledgers = new Ledgers(redis, `${prefix}:ledger`);
  const writes = batchedWrites({
    connector: () => connector,
    channels,
    noteClaims: new NoteClaims(redis, `${prefix}:ledger`),
  });
  return { writes, ledgers };
}

const note = (key: string): NoteDraft => ({
  accountId,
  dedupeKey: key,
  title: 'Contract awarded',
  body: 'Signal: Contracts\nDate: 2026-01-01',
  occurredAt: '2026-01-01T00:00:00Z',
});
const notesOf = (key: string) => crm.notesOf(accountId).filter((n) => n.key === key);

const probe = connect();
const waiting = () => probe.llen(`${prefix}:batch:notes:memory:${TENANT}:q`);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await deleteKeysOf(probe, prefix);
  for (const r of connections) r.disconnect();
});

describe('a note created by two attempts of one job', () => {
  it('waiting in the shared batch while the first create is in flight: made once, the second refused for now', async () => {
    const { calls, connector } = heldCreates(100);
    const first = workerProcess('worker-a', connector);
    const second = workerProcess('worker-b', connector);

    const created = first.writes.createNote('memory', TENANT, note('bi-1-row-1'));
    await waitFor('the first create in flight', () => calls.length === 1);
    // The retry decided the note was missing (the CRM has none yet) and creates it: its item waits
    // behind the sender that holds the channel, which takes it once its call is answered.
    const again = second.writes.createNote('memory', TENANT, note('bi-1-row-1'));
    await waitFor('the second create queued', async () => (await waiting()) === 1);
    calls[0]?.release();

    expect((await created).ok).toBe(true);
    expect(await again).toMatchObject({ ok: false, error: { permanent: false } });
    expect(notesOf('bi-1-row-1')).toHaveLength(1);
  });

  it('sent by another process side by side with the first: made once', async () => {
    // One note per call: the second create takes a second sender's slot instead of waiting.
    const { calls, connector } = heldCreates(1);
    const first = workerProcess('worker-c', connector);
    const second = workerProcess('worker-d', connector);

    const created = first.writes.createNote('memory', TENANT, note('bi-1-row-2'));
    await waitFor('the first create in flight', () => calls.length === 1);
    const again = await second.writes.createNote('memory', TENANT, note('bi-1-row-2'));
    calls[0]?.release();

    expect((await created).ok).toBe(true);
    expect(again).toMatchObject({ ok: false, error: { permanent: false } });
    expect(notesOf('bi-1-row-2')).toHaveLength(1);
  });

  it('made, then undone (its notes forgotten): made again at once', async () => {
    const worker = workerProcess('worker-e', heldCreates(100, 0).connector);
    const key = 'bi-1-row-3';
    expect((await worker.writes.createNote('memory', TENANT, note(key))).ok).toBe(true);
    // An undo removes the note from the CRM and forgets it: its claim goes with it.
    for (const n of notesOf(key)) crm.removeNote(n.id);
    await worker.ledgers.forgetNotes({ crm: 'memory', tenant: TENANT, accountId }, [key]);
    expect((await worker.writes.createNote('memory', TENANT, note(key))).ok).toBe(true);
    expect(notesOf(key)).toHaveLength(1);
  });

  it('refused by the CRM: the claim is freed, a later create goes through', async () => {
    const worker = workerProcess('worker-f', heldCreates(100, 0).connector);
    const gone = { ...note('bi-1-row-4'), accountId: 'acc-that-does-not-exist' };
    expect(await worker.writes.createNote('memory', TENANT, gone)).toMatchObject({
      ok: false,
      error: { status: 404, permanent: true },
    });
    crm.accounts.set('acc-that-does-not-exist', {
      id: 'acc-that-does-not-exist',
      name: 'Later',
      state: null,
      city: null,
      website: null,
      fields: new Map(),
    });
    expect((await worker.writes.createNote('memory', TENANT, gone)).ok).toBe(true);
  });
});
