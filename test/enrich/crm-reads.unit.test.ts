// The enrichment's CRM reads over batch channels, against the memory CRM: jobs asking at once share one
// call, each gets its own fields back, an account the CRM does not have fails as not found, and
// everything that crosses a channel is plain JSON (a shared channel sends it through Redis).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import { AccountNotFoundError, type CrmConnector } from '../../connectors/types.ts';
import type { BatchChannels } from '../../src/batch/channel.ts';
import { localChannels } from '../../src/batch/local.ts';
import { crmReads } from '../../src/enrich/crm-reads.ts';

function setup() {
  const store = memoryCrm(`reads-${randomUUID().slice(0, 8)}`);
  const inner = createMemoryConnector(store);
  const calls = { getAccounts: [] as { ids: string[]; fields: string[] }[], noteKeys: [] as string[][] };
  const connector: CrmConnector = {
    ...inner,
    getAccounts: (ids, fields) => {
      calls.getAccounts.push({ ids: [...ids], fields: [...fields] });
      return inner.getAccounts(ids, fields);
    },
    existingNoteKeysOf: (ids) => {
      calls.noteKeys.push([...ids]);
      return inner.existingNoteKeysOf(ids);
    },
  };
  const local = localChannels({ maxWaitMs: 5 });
  // What crosses the channel must survive JSON, as it does through Redis.
  const sent: unknown[] = [];
  const channels: BatchChannels = (key, spec) =>
    local(key, {
      maxBatch: spec.maxBatch,
      send: async (items) => {
        sent.push(JSON.parse(JSON.stringify(items)));
        const results = await spec.send(items);
        expect(JSON.parse(JSON.stringify(results))).toEqual(results);
        return results;
      },
    });
  const reads = crmReads(channels, () => connector);
  const ref = (accountId: string) => ({ crm: 'memory-crm', tenant: store.workspace, accountId });
  return { store, calls, reads, ref, sent };
}

describe('enrichment reads shared across jobs', () => {
  it('reads accounts asked at once in one call of the union of fields, each with its own fields', async () => {
    const { store, calls, reads, ref } = setup();
    const a = store.createAccount({ name: 'City of Austin', state: 'TX' });
    const b = store.createAccount({ name: 'Travis County', state: 'TX' });
    store.accounts.get(a)?.fields.set('x', '1');
    store.accounts.get(b)?.fields.set('y', '2');
    store.accounts.get(b)?.fields.set('buyer_intel_match_nces_id', '4808940');
    const [ra, rb, ra2] = await Promise.all([
      reads.readAccount(ref(a), ['x']),
      reads.readAccount(ref(b), ['x', 'y']),
      reads.readAccount(ref(a), ['y']),
    ]);
    expect(calls.getAccounts).toEqual([{ ids: [a, b], fields: ['x', 'y'] }]);
    expect(ra).toMatchObject({ id: a, name: 'City of Austin', state: 'TX', fields: { x: '1' } });
    expect(rb).toMatchObject({ id: b, fields: { x: null, y: '2' }, ids: { nces: '4808940' } });
    expect(ra2?.fields).toEqual({ y: null });
  });

  it('fails an account the CRM does not have as not found, for good, and reads the others', async () => {
    const { store, reads, ref } = setup();
    const a = store.createAccount({ name: 'Round Rock' });
    const gone = store.createAccount({ name: 'Gone' });
    store.deleteAccount(gone);
    const [ok, missing] = await Promise.allSettled([
      reads.readAccount(ref(a), []),
      reads.readAccount(ref(gone), []),
    ]);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { id: a } });
    expect(missing).toMatchObject({ status: 'rejected' });
    const err = (missing as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(AccountNotFoundError);
    expect(err).toMatchObject({ permanent: true });
    expect(err.message).toContain(`memory-crm account ${gone} not found`);
  });

  it('reads the note keys of accounts asked at once in one call, each its own', async () => {
    const { store, calls, reads, ref } = setup();
    const a = store.createAccount({ name: 'Leander' });
    const b = store.createAccount({ name: 'Hutto' });
    store.addNote({ accountId: a, key: 'bi-1', title: 't', body: '', occurredAt: '2026-01-01' });
    const [ka, kb, ka2] = await Promise.all([
      reads.noteKeysOf(ref(a)),
      reads.noteKeysOf(ref(b)),
      reads.noteKeysOf(ref(a)),
    ]);
    expect(calls.noteKeys).toEqual([[a, b]]);
    expect([ka, kb, ka2]).toEqual([['bi-1'], [], ['bi-1']]);
  });

  it('splits a burst into batches of the connector’s size', async () => {
    const { store, calls, reads, ref, sent } = setup();
    const ids = Array.from({ length: 150 }, (_, i) => store.createAccount({ name: `Town ${i}` }));
    const read = await Promise.all(ids.map((id) => reads.readAccount(ref(id), ['x'])));
    expect(read.map((r) => r.id)).toEqual(ids);
    expect(calls.getAccounts.map((c) => c.ids.length)).toEqual([100, 50]);
    expect(sent).toHaveLength(2);
  });
});
