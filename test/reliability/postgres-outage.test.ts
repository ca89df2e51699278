// A PostgreSQL outage (a private cluster stopped with `-m immediate`, then started) in the middle of
// CRM writes: a write whose record cannot be made is not sent, and a write the CRM took whose answer
// could not be recorded stays pending until it is settled against what the CRM holds — so every value
// of ours in the CRM has its history row, and an undo takes it back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { CrmConnector } from '../../connectors/types.ts';
import { Store } from '../../src/store/store.ts';
import { settlePendingWrites } from '../../src/undo/settle-pending.ts';
import { resolveUndo } from '../../src/undo/target.ts';
import { runUndo } from '../../src/undo/undo.ts';
import { batchedWrites } from '../../src/write/batched-writes.ts';
import { PG_BIN, type PrivatePostgres, privatePostgres } from '../helpers/private-servers.ts';

const POP = 'buyer_intel_population';
let server: PrivatePostgres;
let store: Store;
const stop = () => server.stop();
const start = () => server.start();

/**
 * A memory CRM named `name` whose field writes and note creations go through the service's batched
 * writes, journaled to the store, as one run; `stopAfterCall` stops PostgreSQL right after the CRM
 * took a call (before its answer can be recorded). Three accounts: Austin, Dallas, Waco.
 */
async function outageScenario(name: string) {
  const repos = await store.open();
  const crm = memoryCrm(name);
  const inner = createMemoryConnector(crm);
  const scenario = { stopAfterCall: false };
  const stopIfAsked = <T>(results: T): T => {
    if (scenario.stopAfterCall) stop();
    return results;
  };
  const connector: CrmConnector = {
    ...inner,
    updateAccounts: async (updates) => stopIfAsked(await inner.updateAccounts(updates)),
    createNotes: async (notes) => stopIfAsked(await inner.createNotes(notes)),
  };
  const journalErrors: string[] = [];
  const writes = batchedWrites({
    connector: () => connector,
    journal: repos.writes,
    onJournalError: (_err, what) => journalErrors.push(what),
  });
  const run = (await repos.runs.create({ kind: 'backfill', label: 'outage' })).id;
  const [a, b, c] = ['Austin', 'Dallas', 'Waco'].map((account) => crm.createAccount({ name: account }));
  if (!a || !b || !c) throw new Error('no accounts');
  const refOf = (accountId: string) => ({ crm: inner.kind, tenant: inner.tenant, accountId });
  /** The run's undo, on a store that is up again. */
  const undoRun = async () =>
    runUndo(
      { store, connectorFor: () => inner, retry: { sleep: async () => {} } },
      await resolveUndo(await store.open(), { kind: 'run', runId: run }),
    );
  return Object.assign(scenario, {
    crm,
    inner,
    writes,
    journalErrors,
    run,
    accounts: [a, b, c] as const,
    refOf,
    undoRun,
  });
}

describe.skipIf(!PG_BIN)('a PostgreSQL outage', () => {
  beforeAll(async () => {
    server = await privatePostgres();
    store = new Store({ url: server.url });
    await store.migrate();
  }, 60_000);
  afterAll(async () => {
    await store?.close().catch(() => undefined);
    server?.remove();
  });

  it('during CRM writes: sends nothing it cannot record, and settles what the CRM took while the store was down', async () => {
    const scenario = await outageScenario('pg-outage');
    const { crm, inner, writes, journalErrors, run, refOf } = scenario;
    const [a, b, c] = scenario.accounts;
    await inner.ensureFields([{ name: POP, label: POP, type: 'string', description: POP }]);
    const write = (accountId: string, value: string) =>
      writes.writeAccount(
        inner.kind,
        inner.tenant,
        { accountId, fields: { [POP]: value } },
        {
          runId: run,
          trigger: 'backfill',
          fields: { [POP]: { old: null, decision: 'write', kind: 'mapped' } },
        },
      );
    expect((await write(a, '961855')).ok).toBe(true);

    // Down before the write: it is refused as transient and the CRM never sees it.
    stop();
    await expect(write(b, '1304379')).rejects.toMatchObject({ permanent: false });
    expect(crm.accounts.get(b)?.fields.get(POP) ?? null).toBeNull();
    start();

    // Down between the CRM call and its record: the row stays pending, then is settled from the CRM.
    scenario.stopAfterCall = true;
    expect((await write(c, '138486')).ok).toBe(true);
    scenario.stopAfterCall = false;
    expect(journalErrors).toHaveLength(1);
    start();
    const fresh = await store.open();
    expect((await fresh.writes.pendingOf(refOf(c))).fields.length).toBe(1);
    expect(await settlePendingWrites(fresh, inner, refOf(c))).toEqual({ fields: 1, notes: 0, unsettled: 0 });

    // Every value of ours in the CRM has its row; the undo of the run leaves none behind.
    for (const id of [a, c]) {
      const page = await fresh.writes.forAccount(refOf(id));
      const ok = page.events.filter((e) => e.type === 'field' && e.result === 'ok');
      expect(ok.map((e) => (e.type === 'field' ? e.new : null))).toEqual([
        crm.accounts.get(id)?.fields.get(POP),
      ]);
    }
    expect((await scenario.undoRun()).counts).toMatchObject({ restored: 2, skipped: 0 });
    expect([a, b, c].map((id) => crm.accounts.get(id)?.fields.get(POP) ?? null)).toEqual([null, null, null]);
  }, 120_000);

  it('during note creation: creates no note it cannot record, and settles a note the CRM made while the store was down', async () => {
    const scenario = await outageScenario('pg-outage-notes');
    const { crm, inner, writes, journalErrors, run, refOf } = scenario;
    const [a, b, c] = scenario.accounts;
    const note = (accountId: string, key: string) =>
      writes.createNote(
        inner.kind,
        inner.tenant,
        { accountId, dedupeKey: key, title: key, body: key, occurredAt: '2026-11-01T00:00:00Z' },
        { runId: run, trigger: 'backfill', buyerId: 'b1' },
      );
    expect((await note(a, 'bi-b1-r1')).ok).toBe(true);

    // Down before the call: refused as transient, and the CRM has no note.
    stop();
    await expect(note(b, 'bi-b1-r2')).rejects.toMatchObject({ permanent: false });
    expect(crm.notesOf(b)).toEqual([]);
    start();

    // Down between the call and its record: the note stays pending, then settled with the CRM's id.
    scenario.stopAfterCall = true;
    expect((await note(c, 'bi-b1-r3')).ok).toBe(true);
    scenario.stopAfterCall = false;
    expect(journalErrors).toEqual(['1 notes']);
    start();
    const fresh = await store.open();
    expect((await fresh.writes.pendingOf(refOf(c))).notes).toHaveLength(1);
    expect(await settlePendingWrites(fresh, inner, refOf(c))).toEqual({ fields: 0, notes: 1, unsettled: 0 });
    expect((await fresh.writes.pendingOf(refOf(c))).notes).toHaveLength(0);

    // Every note of ours has its row with the CRM's id; the run's undo removes both.
    for (const id of [a, c]) {
      const page = await fresh.writes.forAccount(refOf(id));
      expect(page.events.map((e) => (e.type === 'note' ? e.noteId : null))).toEqual(
        crm.notesOf(id).map((n) => n.id),
      );
    }
    expect((await scenario.undoRun()).counts).toMatchObject({ notesRemoved: 2 });
    expect([a, b, c].flatMap((id) => crm.notesOf(id))).toEqual([]);
  }, 120_000);
});
