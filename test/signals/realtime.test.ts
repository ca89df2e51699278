// The real-time signal job against the provider's sandbox API and real Redis: which rows become notes,
// on which accounts, and how failures surface to the queue.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteDraft } from '../../connectors/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { addSandboxRow } from '../../emulators/buyer-intel/webhook-sender.ts';
import { classifyFailure } from '../../queues/failure.ts';
import type { SignalJobData } from '../../queues/signal-queue.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/client.ts';
import { NO_FOLLOW_UPS } from '../../src/follow-ups/settings.ts';
import { AccountBusyError, redisAccountLock } from '../../src/signals/account-lock.ts';
import { processRowEvent, type RealtimeDeps } from '../../src/signals/realtime.ts';
import { findRow, RowNotFoundError } from '../../src/signals/row-lookup.ts';
import type { WriteOrigin } from '../../src/write/journal.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { signalNoteKey } from '../../src/write/signal-notes.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { FakeCrm } from './fake-crm.ts';

const PREFIX = `test:signals:${randomUUID()}`;
let redis: Redis;
let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
let ledgers: Ledgers;

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  sandbox = await startSandbox();
  client = clientFor(sandbox).client;
  ledgers = new Ledgers(redis, `${PREFIX}:ledger`);
});
afterAll(async () => {
  await sandbox.close();
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const bridgeId = () => sandbox.dataset.bridges[0]?.bridgeId ?? '';
const account = (n: number) => ({ crm: 'hubspot' as const, tenant: '77', accountId: `${PREFIX}-${n}` });

function event(row: { rowId: string; bridgeId: string; updatedAt: string }): SignalJobData {
  return {
    webhookId: `msg_${randomUUID()}`,
    type: 'bridge.row.created',
    rowId: row.rowId,
    bridgeId: row.bridgeId,
    updatedAt: row.updatedAt,
    name: null,
  };
}

function deps(crm: FakeCrm, over: Partial<RealtimeDeps> = {}): RealtimeDeps {
  return { buyerIntel: client, connectorFor: (k, t) => crm.connector(k, t), ledgers, ...over };
}

/** A buyer of its own per test, so the tests share no account. */
function buyer(n: number): string {
  return sandbox.dataset.buyers[100 + n]?.id ?? '';
}

describe('processRowEvent', () => {
  it('a row without a buyer writes nothing', async () => {
    const crm = new FakeCrm();
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: null, name: 'orphan' });
    expect(await processRowEvent(deps(crm), event(row))).toMatchObject({ status: 'no_buyer', accounts: [] });
    expect(crm.createCalls).toBe(0);
  });

  it('skips an account deleted in the CRM, notes the others, and the ledger makes a re-run a no-op', async () => {
    const crm = new FakeCrm();
    const b = buyer(1);
    await ledgers.recordMatch(account(1), b);
    await ledgers.recordMatch(account(2), b);
    crm.deleted.add(account(1).accountId);
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: b });
    const result = await processRowEvent(deps(crm), event(row));
    expect(result.accounts.map((a) => [a.accountId, a.outcome]).sort()).toEqual(
      [
        [account(1).accountId, 'account_gone'],
        [account(2).accountId, 'created'],
      ].sort(),
    );
    const again = await processRowEvent(deps(crm), event(row));
    expect(again.accounts.find((a) => a.accountId === account(2).accountId)?.outcome).toBe('already_present');
    expect(crm.createCalls).toBe(1);
  });

  it('uses the batched note writer when given one', async () => {
    const crm = new FakeCrm();
    const b = buyer(2);
    await ledgers.recordMatch(account(3), b);
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: b });
    const sent: NoteDraft[] = [];
    const result = await processRowEvent(
      deps(crm, {
        createNote: async (_crm, _tenant, note) => {
          sent.push(note);
          return { ok: true, dedupeKey: note.dedupeKey, noteId: 'n1' };
        },
      }),
      event(row),
    );
    expect(result.status).toBe('noted');
    expect(sent.map((n) => n.dedupeKey)).toEqual([signalNoteKey(b, row.rowId)]);
  });

  it('a row of a follow-up type becomes a task for the owner of each account, naming the row it closes', async () => {
    const crm = new FakeCrm();
    const b = buyer(5);
    await ledgers.recordMatch(account(7), b);
    await ledgers.recordMatch(account(8), b);
    crm.owners.set(account(7).accountId, '71000001');
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: b });
    const filterType = sandbox.dataset.bridges[0]?.filterType ?? '';
    const sent: { note: NoteDraft; origin: WriteOrigin | undefined }[] = [];
    await processRowEvent(
      deps(crm, {
        followUps: { ...NO_FOLLOW_UPS, taskTypes: [filterType] },
        createNote: async (_crm, _tenant, note, origin) => {
          sent.push({ note, origin });
          return { ok: true, dedupeKey: note.dedupeKey, noteId: `n${sent.length}` };
        },
      }),
      event(row),
    );
    const owned = sent.find((s) => s.note.accountId === account(7).accountId);
    const unowned = sent.find((s) => s.note.accountId === account(8).accountId);
    expect(owned?.note.task?.ownerId).toBe('71000001');
    expect(owned?.origin?.signal).toEqual({ bridgeId: row.bridgeId, rowId: row.rowId });
    // No owner and no fallback owner: the note it always was.
    expect(unowned?.note.task).toBeUndefined();
  });

  it('a permanent CRM refusal fails the job for good; a transient one retries', async () => {
    const crm = new FakeCrm();
    const b = buyer(3);
    await ledgers.recordMatch(account(4), b);
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: b });
    const refusing = (permanent: boolean) =>
      deps(crm, {
        createNote: async (_c, _t, note) => ({
          ok: false,
          dedupeKey: note.dedupeKey,
          error: { status: permanent ? 400 : 503, message: 'refused', permanent },
        }),
      });
    const permanent = await processRowEvent(refusing(true), event(row)).catch((e: unknown) => e);
    expect(classifyFailure(permanent).action).toBe('fail');
    const transient = await processRowEvent(refusing(false), event(row)).catch((e: unknown) => e);
    expect(classifyFailure(transient).action).toBe('retry');
  });

  it('ignores bridges outside the allow-list', async () => {
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: buyer(4) });
    const result = await processRowEvent(deps(new FakeCrm(), { bridgeIds: [randomUUID()] }), event(row));
    expect(result.status).toBe('bridge_ignored');
  });
});

describe('findRow', () => {
  it('finds a just-changed row on the first page, and gives up past rows older than the event', async () => {
    const row = addSandboxRow(sandbox.dataset, { bridgeId: bridgeId(), buyerId: buyer(5) });
    expect((await findRow(client, event(row), { pageSize: 5 })).rowId).toBe(row.rowId);
    const missing = { bridgeId: bridgeId(), rowId: randomUUID(), updatedAt: new Date().toISOString() };
    const urls = clientFor(sandbox);
    await expect(findRow(urls.client, missing, { pageSize: 5 })).rejects.toBeInstanceOf(RowNotFoundError);
    expect(urls.urls).toHaveLength(1);
    // Without a time bound it reads at most maxPages pages.
    const unbounded = clientFor(sandbox);
    await expect(
      findRow(unbounded.client, { ...missing, updatedAt: null }, { pageSize: 5, maxPages: 3 }),
    ).rejects.toBeInstanceOf(RowNotFoundError);
    expect(unbounded.urls).toHaveLength(3);
    expect(classifyFailure(new RowNotFoundError('x')).action).toBe('retry');
  });
});

describe('redisAccountLock', () => {
  it('waits for the enrich worker to release the account, and gives up after waitMs', async () => {
    const keyOf = (a: { crm: string; tenant: string; accountId: string }) =>
      `${PREFIX}:lock:${a.crm}:${a.tenant}:${a.accountId}`;
    const lock = redisAccountLock({ redis, keyOf, waitMs: 300, pollMs: 20 });
    const key = keyOf(account(9));
    await redis.set(key, 'job:enrich-1', 'PX', 10_000);
    await expect(lock(account(9), async () => 'ran')).rejects.toBeInstanceOf(AccountBusyError);
    setTimeout(() => void redis.del(key), 100);
    expect(await lock(account(9), async () => 'ran')).toBe('ran');
    expect(await redis.exists(key)).toBe(0);
  });
});
