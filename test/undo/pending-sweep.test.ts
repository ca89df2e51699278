// The sweep that settles pending rows no job came back to: a batch whose process died between the CRM
// call and its record (the settle never ran) leaves its field writes and notes pending; the sweep
// settles those older than its threshold against what the CRM holds — the value it holds is ours, a
// note it holds is recorded with its id, one it does not hold was never created — leaves younger rows
// (a call may still be in flight) and an account a job holds, and the run's undo then takes back all.
import '../helpers/memory-crm.ts';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { CrmConnector } from '../../connectors/types.ts';
import { accountLockKey, redisAccountLocks } from '../../src/signals/account-lock.ts';
import type { Store } from '../../src/store/store.ts';
import { sweepPendingWrites } from '../../src/undo/pending-sweep.ts';
import { resolveUndo } from '../../src/undo/target.ts';
import { runUndo } from '../../src/undo/undo.ts';
import { batchedWrites } from '../../src/write/batched-writes.ts';
import type { WriteJournal } from '../../src/write/journal.ts';
import { mustRunEverywhere, VARIANTS } from '../helpers/databases.ts';

const POP = 'buyer_intel_population';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const variant of VARIANTS) {
  if (variant.unavailable) {
    if (mustRunEverywhere)
      it(`pending sweep on ${variant.name}`, () => {
        throw new Error(`CI must run this on ${variant.name}: ${variant.unavailable}`);
      });
    else it.skip(`pending sweep on ${variant.name} — skipped: ${variant.unavailable}`, () => {});
    continue;
  }
  describe(`the pending sweep on ${variant.name}`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    let redis: Redis;
    const prefix = `test-sweep-${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      ({ store, drop } = await variant.fresh());
      await store.migrate();
      redis = new Redis(REDIS_URL);
    });
    afterAll(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await drop?.();
    });

    it('settles what a dead process left pending, leaves young rows and busy accounts, and undo takes all back', async () => {
      const repos = await store.open();
      const crm = memoryCrm(`sweep-${randomUUID().slice(0, 8)}`);
      const connector: CrmConnector = createMemoryConnector(crm);
      await connector.ensureFields([{ name: POP, label: POP, type: 'string', description: POP }]);
      // The process dies right after the CRM answered: nothing settles the rows it recorded pending.
      const dying: WriteJournal = {
        recordFieldWrites: (e) => repos.writes.recordFieldWrites(e),
        recordNotes: (e) => repos.writes.recordNotes(e),
        recordPendingFieldWrites: (e) => repos.writes.recordPendingFieldWrites(e),
        recordPendingNotes: (e) => repos.writes.recordPendingNotes(e),
        settleFieldWrites: async () => {
          throw new Error('killed');
        },
        settleNotes: async () => {
          throw new Error('killed');
        },
      };
      const writes = batchedWrites({ connector: () => connector, journal: dying, onJournalError: () => {} });
      const run = (await repos.runs.create({ kind: 'backfill', label: 'killed' })).id;
      const origin = { runId: run, trigger: 'backfill', buyerId: 'b7' };
      const [a, b, c] = ['Round Rock', 'Cedar Park', 'Leander'].map((name) => crm.createAccount({ name }));
      if (!a || !b || !c) throw new Error('no accounts');
      for (const [id, value] of [
        [a, '51000'],
        [b, '18000'],
        [c, '42000'],
      ] as const) {
        await writes.writeAccount(
          connector.kind,
          connector.tenant,
          { accountId: id, fields: { [POP]: value } },
          { ...origin, fields: { [POP]: { old: null, decision: 'write', kind: 'mapped' } } },
        );
        await writes.createNote(
          connector.kind,
          connector.tenant,
          { accountId: id, dedupeKey: `bi-b7-${id}`, title: 't', body: 'b', occurredAt: '2026-11-01' },
          origin,
        );
      }
      // b: a person then deleted our note before anything settled it (it is not on the CRM any more).
      const bNote = crm.notesOf(b)[0];
      if (bNote) crm.removeNote(bNote.id);
      const key = (accountId: string) => ({ crm: connector.kind, tenant: connector.tenant, accountId });
      const deps = {
        store,
        connectorFor: () => connector,
        locks: redisAccountLocks({
          redis,
          keyOf: (acc) => accountLockKey(prefix, acc),
          waitMs: 50,
          pollMs: 10,
        }),
      };

      // Younger than the threshold: untouched (its call may still be in flight).
      expect(await sweepPendingWrites(deps, { olderThanMs: 60_000 })).toMatchObject({ accounts: 0 });
      // c is being enriched (its job holds the lock): left for the next sweep.
      await redis.set(accountLockKey(prefix, key(c)), 'enrich-job', 'PX', 60_000);
      const later = new Date(Date.now() + 120_000);
      expect(await sweepPendingWrites(deps, { olderThanMs: 60_000, now: later })).toEqual({
        accounts: 2,
        fields: 2,
        notes: 2,
        unsettled: 0,
        left: 1,
      });
      expect((await repos.writes.pendingOf(key(c))).fields).toHaveLength(1);
      await redis.del(accountLockKey(prefix, key(c)));
      expect(await sweepPendingWrites(deps, { olderThanMs: 60_000, now: later })).toMatchObject({
        accounts: 1,
        left: 0,
      });

      // Every value and note of ours on the CRM has its row; b's deleted note was dropped, not recorded.
      for (const id of [a, b, c]) {
        expect(await repos.writes.pendingOf(key(id))).toEqual({ fields: [], notes: [] });
        const { events } = await repos.writes.forAccount(key(id));
        expect(events.flatMap((e) => (e.type === 'field' && e.result === 'ok' ? [e.new] : []))).toEqual([
          crm.accounts.get(id)?.fields.get(POP),
        ]);
        expect(events.flatMap((e) => (e.type === 'note' ? [e.noteId] : []))).toEqual(
          crm.notesOf(id).map((n) => n.id),
        );
      }
      const undone = await runUndo(
        { store, connectorFor: () => connector, retry: { sleep: async () => {} } },
        await resolveUndo(repos, { kind: 'run', runId: run }),
      );
      expect(undone.counts).toMatchObject({ restored: 3, notesRemoved: 2 });
      expect([a, b, c].map((id) => crm.accounts.get(id)?.fields.get(POP) ?? null)).toEqual([
        null,
        null,
        null,
      ]);
      expect([a, b, c].flatMap((id) => crm.notesOf(id))).toEqual([]);
    });
  });
}
