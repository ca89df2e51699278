// One contract every CRM connector must pass, run once per adapter (see *-contract.unit.test.ts): a harness
// starts that CRM's emulator, creates accounts as a person would, and reads values and notes straight
// from the emulator, so the suite checks behaviour through the `CrmConnector` interface alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCrmKind } from '../../connectors/registry.ts';
import { AccountNotFoundError, type CrmConnector, type NoteDraft } from '../../connectors/types.ts';

export interface Harness {
  connector: CrmConnector;
  /** Creates an account as a person would in the CRM (name, state, website) and returns its id. */
  createAccount(fields: { name: string; state?: string; website?: string }): Promise<string>;
  /** Deletes it (to test writes to a deleted account). */
  deleteAccount(id: string): Promise<void>;
  /** A field of ours that exists in the CRM (setup done), by OUR name, e.g. 'buyer_intel_population'. */
  ourField: string;
  /** Reads a field's value straight from the emulator (not through the connector). */
  readField(accountId: string, ourField: string): Promise<string | null>;
  /** Notes/Tasks linked to the account, as the emulator holds them. */
  notesOn(accountId: string): Promise<number>;
  /** An id that is well formed for the CRM but does not exist. */
  unknownId: string;
  /** Adds a user of the CRM (as an admin would) and makes them the account's owner; returns their id. */
  giveOwner(accountId: string, email: string, name: { first: string; last: string }): Promise<string>;
  close(): Promise<void>;
}

const draft = (accountId: string, dedupeKey: string): NoteDraft => ({
  accountId,
  dedupeKey,
  title: `RFP: Fleet vehicles ${dedupeKey}`,
  body: 'Due Date: 2026-10-01\nLink: https://bids.example.gov/rfp/42',
  occurredAt: '2026-09-15T12:00:00Z',
});

export function connectorContract(name: string, harness: () => Promise<Harness>): void {
  describe(`${name} connector contract`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await harness();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('has a registered kind, a tenant and batch sizes of at least 100', () => {
      expect(isCrmKind(h.connector.kind)).toBe(true);
      expect(h.connector.tenant).toEqual(expect.any(String));
      expect(h.connector.tenant.length).toBeGreaterThan(0);
      expect(h.connector.maxUpdateBatch).toBeGreaterThanOrEqual(100);
      expect(h.connector.maxNoteBatch).toBeGreaterThanOrEqual(100);
      expect(h.connector.maxNoteRemovalBatch).toBeGreaterThanOrEqual(100);
    });

    it('reads name, state, website and the requested fields (null when empty)', async () => {
      const id = await h.createAccount({
        name: 'City of Austin',
        state: 'TX',
        website: 'https://www.austintexas.gov',
      });
      const empty = await h.connector.getAccount(id, [h.ourField]);
      expect(empty).toMatchObject({
        id,
        name: 'City of Austin',
        state: 'TX',
        website: 'https://www.austintexas.gov',
        fields: { [h.ourField]: null },
      });

      const [written] = await h.connector.updateAccounts([
        { accountId: id, fields: { [h.ourField]: '961855' } },
      ]);
      expect(written).toEqual({ accountId: id, ok: true });
      const read = await h.connector.getAccount(id, [h.ourField]);
      expect(read.fields).toEqual({ [h.ourField]: '961855' });
    });

    it('reads the account’s ids from its id fields as text, leading zeros kept, empty ones left out', async () => {
      const nces = h.connector.idFields?.find((f) => f.kind === 'nces');
      const census = h.connector.idFields?.find((f) => f.kind === 'census');
      if (!nces || !census) throw new Error('the connector reads no NCES or Census id');
      const id = await h.createAccount({ name: 'LAUSD', state: 'CA' });
      expect((await h.connector.getAccount(id, [])).ids).toBeUndefined();
      const [written] = await h.connector.updateAccounts([
        { accountId: id, fields: { [nces.name]: '0602316', [census.name]: ' ' } },
      ]);
      expect(written).toEqual({ accountId: id, ok: true });
      expect((await h.connector.getAccount(id, [])).ids).toEqual({ nces: '0602316' });
    });

    it('reads an account without state or website as nulls', async () => {
      const id = await h.createAccount({ name: 'Travis County' });
      expect(await h.connector.getAccount(id, [])).toMatchObject({
        id,
        name: 'Travis County',
        state: null,
        website: null,
      });
    });

    it('throws AccountNotFoundError for an unknown id', async () => {
      await expect(h.connector.getAccount(h.unknownId, [h.ourField])).rejects.toBeInstanceOf(
        AccountNotFoundError,
      );
    });

    it('reads a batch of accounts by id in one call: those that exist, in input order, each once', async () => {
      expect(h.connector.maxReadBatch).toBeGreaterThanOrEqual(100);
      const a = await h.createAccount({ name: 'Leander', state: 'TX' });
      const gone = await h.createAccount({ name: 'Gone Too' });
      const b = await h.createAccount({ name: 'Hutto' });
      await h.deleteAccount(gone);
      await h.connector.updateAccounts([{ accountId: b, fields: { [h.ourField]: '27577' } }]);
      const read = await h.connector.getAccounts([b, h.unknownId, gone, a, b, 'not an id'], [h.ourField]);
      expect(read.map((s) => s.id)).toEqual([b, a]);
      expect(read[0]).toMatchObject({ name: 'Hutto', fields: { [h.ourField]: '27577' } });
      expect(read[1]).toMatchObject({ name: 'Leander', state: 'TX', fields: { [h.ourField]: null } });
      expect(await h.connector.getAccounts([], [h.ourField])).toEqual([]);
      const tooMany = Array.from({ length: h.connector.maxReadBatch + 1 }, () => a);
      await expect(h.connector.getAccounts(tooMany, [])).rejects.toBeInstanceOf(RangeError);
    });

    it('reads each account’s ids in a batch read too', async () => {
      const nces = h.connector.idFields?.find((f) => f.kind === 'nces');
      if (!nces) throw new Error('the connector reads no NCES id');
      const id = await h.createAccount({ name: 'Pasadena ISD', state: 'TX' });
      const plain = await h.createAccount({ name: 'Deer Park' });
      await h.connector.updateAccounts([{ accountId: id, fields: { [nces.name]: '4834320' } }]);
      const read = await h.connector.getAccounts([id, plain], [h.ourField]);
      expect(read.map((s) => s.ids)).toEqual([{ nces: '4834320' }, undefined]);
      expect(read[0]?.fields).toEqual({ [h.ourField]: null });
    });

    it('reads a full batch of maxReadBatch accounts by id', async () => {
      const ids: string[] = [];
      for (let i = 0; i < h.connector.maxReadBatch; i++)
        ids.push(await h.createAccount({ name: `Batch Read ${i}` }));
      const read = await h.connector.getAccounts([...ids].reverse(), []);
      expect(read.map((s) => s.id)).toEqual([...ids].reverse());
      expect(read.at(-1)?.name).toBe('Batch Read 0');
    });

    it('lists every account once, a page at a time, and resumes from a page cursor', async () => {
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4, 5]) ids.push(await h.createAccount({ name: `Backfill District ${n}` }));
      await h.connector.updateAccounts([{ accountId: ids[2] ?? '', fields: { [h.ourField]: '42' } }]);
      const seen: string[] = [];
      const cursors: string[] = [];
      let after: string | null = null;
      do {
        const page = await h.connector.listAccounts([h.ourField], { after, limit: 2 });
        expect(page.accounts.length).toBeLessThanOrEqual(2);
        for (const account of page.accounts) {
          seen.push(account.id);
          if (account.id === ids[2]) expect(account.fields).toEqual({ [h.ourField]: '42' });
          if (account.id === ids[0]) expect(account.name).toBe('Backfill District 1');
        }
        after = page.next;
        if (after) cursors.push(after);
      } while (after);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of ids) expect(seen).toContain(id);
      // A backfill that stopped after a page picks up exactly where it was.
      const resumeAt = cursors[0] ?? null;
      const rest: string[] = [];
      after = resumeAt;
      while (after) {
        const page = await h.connector.listAccounts([], { after, limit: 100 });
        rest.push(...page.accounts.map((a) => a.id));
        after = page.next;
      }
      expect(rest).toEqual(seen.slice(2));
    });

    it('writes a batch with results in input order, readable in the CRM; null clears a field', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await h.createAccount({ name: `Town ${i}` }));
      const results = await h.connector.updateAccounts(
        ids.map((id, i) => ({ accountId: id, fields: { [h.ourField]: String(1000 + i) } })),
      );
      expect(results).toEqual(ids.map((id) => ({ accountId: id, ok: true })));
      for (const [i, id] of ids.entries()) expect(await h.readField(id, h.ourField)).toBe(String(1000 + i));

      const first = ids[0] ?? '';
      const cleared = await h.connector.updateAccounts([
        { accountId: first, fields: { [h.ourField]: null } },
      ]);
      expect(cleared).toEqual([{ accountId: first, ok: true }]);
      expect(await h.readField(first, h.ourField)).toBeNull();
      expect((await h.connector.getAccount(first, [h.ourField])).fields).toEqual({ [h.ourField]: null });
      expect(await h.readField(ids[1] ?? '', h.ourField)).toBe('1001');
    });

    it('clears a field with "" as with null, and writes a cleared field back (undo restores both ways)', async () => {
      const id = await h.createAccount({ name: 'Cedar Park' });
      const write = async (value: string | null) =>
        expect(
          await h.connector.updateAccounts([{ accountId: id, fields: { [h.ourField]: value } }]),
        ).toEqual([{ accountId: id, ok: true }]);
      await write('77000');
      await write('');
      expect(await h.readField(id, h.ourField)).toBeNull();
      expect((await h.connector.getAccount(id, [h.ourField])).fields).toEqual({ [h.ourField]: null });
      await write('77000');
      expect(await h.readField(id, h.ourField)).toBe('77000');
      await write(null);
      expect(await h.readField(id, h.ourField)).toBeNull();
    });

    it('fails a deleted account in a batch permanently and writes the others', async () => {
      const a = await h.createAccount({ name: 'Round Rock' });
      const gone = await h.createAccount({ name: 'Gone' });
      const b = await h.createAccount({ name: 'Pflugerville' });
      await h.deleteAccount(gone);
      const results = await h.connector.updateAccounts([
        { accountId: a, fields: { [h.ourField]: '119468' } },
        { accountId: gone, fields: { [h.ourField]: '1' } },
        { accountId: b, fields: { [h.ourField]: '65191' } },
      ]);
      expect(results).toHaveLength(3);
      expect(results[0]).toEqual({ accountId: a, ok: true });
      expect(results[1]).toMatchObject({ accountId: gone, ok: false, error: { permanent: true } });
      expect(results[2]).toEqual({ accountId: b, ok: true });
      expect(await h.readField(a, h.ourField)).toBe('119468');
      expect(await h.readField(b, h.ourField)).toBe('65191');
      await expect(h.connector.getAccount(gone, [])).rejects.toBeInstanceOf(AccountNotFoundError);
    });

    it('creates notes linked to their accounts, in input order, and reads exactly their keys back', async () => {
      const austin = await h.createAccount({ name: 'Austin' });
      const dallas = await h.createAccount({ name: 'Dallas' });
      expect(await h.connector.existingNoteKeys(austin)).toEqual(new Set());
      const drafts = [draft(austin, 'bi-1-a'), draft(dallas, 'bi-2-b'), draft(austin, 'bi-1-c')];
      const results = await h.connector.createNotes(drafts);
      expect(results.map((r) => r.dedupeKey)).toEqual(['bi-1-a', 'bi-2-b', 'bi-1-c']);
      for (const result of results) expect(result).toMatchObject({ ok: true, noteId: expect.any(String) });
      const noteIds = results.map((r) => (r.ok ? r.noteId : ''));
      expect(new Set(noteIds).size).toBe(3);

      expect(await h.notesOn(austin)).toBe(2);
      expect(await h.notesOn(dallas)).toBe(1);
      expect(await h.connector.existingNoteKeys(austin)).toEqual(new Set(['bi-1-a', 'bi-1-c']));
      expect(await h.connector.existingNoteKeys(dallas)).toEqual(new Set(['bi-2-b']));
    });

    it('reads the note keys of many accounts at once: each asked id, its keys once, none for the unknown', async () => {
      expect(h.connector.maxNoteKeyBatch).toBeGreaterThanOrEqual(100);
      const round = await h.createAccount({ name: 'Round Rock' });
      const cedar = await h.createAccount({ name: 'Cedar Park' });
      const bare = await h.createAccount({ name: 'Liberty Hill' });
      const gone = await h.createAccount({ name: 'Gone Again' });
      await h.connector.createNotes([draft(round, 'bi-8-a'), draft(cedar, 'bi-8-b'), draft(round, 'bi-8-c')]);
      await h.deleteAccount(gone);
      const keys = await h.connector.existingNoteKeysOf([cedar, round, bare, h.unknownId, gone, round]);
      expect([...keys.keys()].sort()).toEqual([cedar, round, bare, h.unknownId, gone].sort());
      expect(keys.get(round)?.sort()).toEqual(['bi-8-a', 'bi-8-c']);
      expect(keys.get(cedar)).toEqual(['bi-8-b']);
      expect(keys.get(bare)).toEqual([]);
      expect(keys.get(h.unknownId)).toEqual([]);
      expect(keys.get(gone)).toEqual([]);
      // The same answer as one account at a time.
      expect(new Set(keys.get(round))).toEqual(await h.connector.existingNoteKeys(round));
      expect(await h.connector.existingNoteKeysOf([])).toEqual(new Map());
      const tooMany = Array.from({ length: h.connector.maxNoteKeyBatch + 1 }, () => round);
      await expect(h.connector.existingNoteKeysOf(tooMany)).rejects.toBeInstanceOf(RangeError);
    });

    it('reads the note keys of a full batch of maxNoteKeyBatch accounts', async () => {
      const ids: string[] = [];
      for (let i = 0; i < h.connector.maxNoteKeyBatch; i++)
        ids.push(await h.createAccount({ name: `Note Keys ${i}` }));
      const drafts = ids.filter((_, i) => i % 3 === 0).map((id, i) => draft(id, `bi-9-${i}`));
      for (let i = 0; i < drafts.length; i += h.connector.maxNoteBatch)
        await h.connector.createNotes(drafts.slice(i, i + h.connector.maxNoteBatch));
      const keys = await h.connector.existingNoteKeysOf(ids);
      expect(keys.size).toBe(ids.length);
      for (const [i, id] of ids.entries()) expect(keys.get(id)).toEqual(i % 3 === 0 ? [`bi-9-${i / 3}`] : []);
    });

    it('names the id of each note with our key (existingNotesOf, where the connector has it)', async (ctx) => {
      const existingNotesOf = h.connector.existingNotesOf?.bind(h.connector);
      if (!existingNotesOf) return ctx.skip();
      const elm = await h.createAccount({ name: 'Elm Notes' });
      const bare = await h.createAccount({ name: 'Bare Notes' });
      const created = await h.connector.createNotes([draft(elm, 'bi-10-a'), draft(elm, 'bi-10-b')]);
      const ids = created.map((r) => (r.ok ? r.noteId : null));
      const notes = await existingNotesOf([elm, bare, h.unknownId]);
      // The ids are the ones createNotes answered: what an undo removes the notes by.
      expect(
        notes
          .get(elm)
          ?.map((n) => `${n.dedupeKey}=${n.noteId}`)
          .sort(),
      ).toEqual([`bi-10-a=${ids[0]}`, `bi-10-b=${ids[1]}`]);
      expect(notes.get(bare)).toEqual([]);
      expect(notes.get(h.unknownId)).toEqual([]);
    });

    it('makes one note of a key given twice in one batch', async () => {
      const plano = await h.createAccount({ name: 'Plano' });
      const results = await h.connector.createNotes([
        draft(plano, 'bi-4-a'),
        draft(plano, 'bi-4-b'),
        draft(plano, 'bi-4-a'),
      ]);
      expect(results.map((r) => r.dedupeKey)).toEqual(['bi-4-a', 'bi-4-b', 'bi-4-a']);
      for (const result of results) expect(result.ok).toBe(true);
      expect(results[2]).toEqual(results[0]);
      expect(await h.notesOn(plano)).toBe(2);
      expect(await h.connector.existingNoteKeys(plano)).toEqual(new Set(['bi-4-a', 'bi-4-b']));
    });

    it('removes the notes it created, in input order: gone from the CRM and from existingNoteKeys', async () => {
      const austin = await h.createAccount({ name: 'Georgetown' });
      const dallas = await h.createAccount({ name: 'Leander' });
      const created = await h.connector.createNotes([
        draft(austin, 'bi-5-a'),
        draft(dallas, 'bi-5-b'),
        draft(austin, 'bi-5-c'),
      ]);
      const [a, b] = created.map((r) => (r.ok ? r.noteId : ''));
      const refs = [
        { accountId: dallas, noteId: b ?? '' },
        { accountId: austin, noteId: a ?? '' },
      ];
      expect(await h.connector.removeNotes(refs)).toEqual(
        refs.map((ref) => ({ ...ref, outcome: 'removed' })),
      );
      expect(await h.notesOn(austin)).toBe(1);
      expect(await h.notesOn(dallas)).toBe(0);
      expect(await h.connector.existingNoteKeys(austin)).toEqual(new Set(['bi-5-c']));
      expect(await h.connector.existingNoteKeys(dallas)).toEqual(new Set());
    });

    it('answers already_gone for a note removed before, and removes the rest of the batch', async () => {
      const id = await h.createAccount({ name: 'Hutto' });
      const created = await h.connector.createNotes([draft(id, 'bi-6-a'), draft(id, 'bi-6-b')]);
      const [first, second] = created.map((r) => ({ accountId: id, noteId: r.ok ? r.noteId : '' }));
      if (!first || !second) throw new Error('notes not created');
      expect(await h.connector.removeNotes([first])).toEqual([{ ...first, outcome: 'removed' }]);
      // Undoing twice, or resuming an undo, asks again: nothing is left to remove and nothing fails.
      expect(await h.connector.removeNotes([first, second, first])).toEqual([
        { ...first, outcome: 'already_gone' },
        { ...second, outcome: 'removed' },
        { ...first, outcome: 'already_gone' },
      ]);
      expect(await h.connector.removeNotes([second])).toEqual([{ ...second, outcome: 'already_gone' }]);
      expect(await h.notesOn(id)).toBe(0);
      expect(await h.connector.existingNoteKeys(id)).toEqual(new Set());
      // Gone notes are not in the way: the same signal can be noted again.
      const again = await h.connector.createNotes([draft(id, 'bi-6-a')]);
      expect(again[0]).toMatchObject({ ok: true });
      expect(await h.connector.existingNoteKeys(id)).toEqual(new Set(['bi-6-a']));
    });

    it('never removes a record that is not a note, given its id by mistake', async () => {
      const id = await h.createAccount({ name: 'Taylor' });
      const [result] = await h.connector.removeNotes([{ accountId: id, noteId: id }]);
      // Refused as no note id, or (where only notes can be named: HubSpot's notes API) no such note.
      if (result?.outcome === 'failed') expect(result.error.permanent).toBe(true);
      else expect(result).toEqual({ accountId: id, noteId: id, outcome: 'already_gone' });
      expect((await h.connector.getAccount(id, [])).name).toBe('Taylor');
    });

    it('creates a follow-up task with a note’s key; reads it open, and deleted once removed', async () => {
      const id = await h.createAccount({ name: 'Round Rock ISD', state: 'TX' });
      // A real user of the CRM: both CRMs refuse a task for an owner id that names none.
      const ownerId = await h.giveOwner(id, 'rhea.ortiz@rep.example', { first: 'Rhea', last: 'Ortiz' });
      const task = { ownerId, dueDate: '2026-12-01', priority: 'high' as const };
      const [made] = await h.connector.createNotes([{ ...draft(id, 'bi-task-1'), task }]);
      if (!made?.ok) throw new Error(`not created: ${JSON.stringify(made)}`);
      expect([...(await h.connector.existingNoteKeys(id))]).toEqual(['bi-task-1']);
      expect((await h.connector.existingNoteKeysOf([id])).get(id)).toEqual(['bi-task-1']);
      expect(await h.connector.taskStates([made.noteId])).toEqual([
        { noteId: made.noteId, state: 'open', status: expect.any(String) },
      ]);
      const [removed] = await h.connector.removeNotes([{ accountId: id, noteId: made.noteId }]);
      expect(removed?.outcome).toBe('removed');
      expect((await h.connector.taskStates([made.noteId]))[0]?.state).toBe('deleted');
    });

    it('refuses more notes than maxNoteRemovalBatch in one call and removes none (the caller splits)', async () => {
      const id = await h.createAccount({ name: 'Manor' });
      const [created] = await h.connector.createNotes([draft(id, 'bi-7-a')]);
      const ref = { accountId: id, noteId: created?.ok ? created.noteId : '' };
      const tooMany = Array.from({ length: h.connector.maxNoteRemovalBatch + 1 }, () => ref);
      await expect(h.connector.removeNotes(tooMany)).rejects.toBeInstanceOf(RangeError);
      expect(await h.notesOn(id)).toBe(1);
      expect(await h.connector.removeNotes([])).toEqual([]);
    });

    it("reads an account's owner and lists the users who can own accounts, with email and name", async () => {
      const id = await h.createAccount({ name: 'Owned County' });
      const ownerId = await h.giveOwner(id, 'owen.price@rep.example', { first: 'Owen', last: 'Price' });
      expect((await h.connector.getAccount(id, [])).ownerId).toBe(ownerId);
      expect((await h.connector.getAccounts([id], []))[0]?.ownerId).toBe(ownerId);
      const owners = await h.connector.listOwners();
      expect(owners).toContainEqual({
        id: ownerId,
        email: 'owen.price@rep.example',
        name: 'Owen Price',
        active: true,
      });
    });
  });
}
