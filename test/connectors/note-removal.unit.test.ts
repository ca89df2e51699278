// removeNotes beyond the contract, over real HTTP against the emulators with the real SDKs: how many
// calls a batch costs, what a failed call leaves behind (nothing removed, an error the caller retries
// on), and Salesforce removing both note forms whatever SALESFORCE_NOTES says now.
import { afterAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import {
  createSalesforceConnector,
  SalesforceTransientError,
} from '../../connectors/salesforce/connector.ts';
import { CrmRateLimitError, type NoteDraft } from '../../connectors/types.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

const draft = (accountId: string, dedupeKey: string): NoteDraft => ({
  accountId,
  dedupeKey,
  title: `RFP ${dedupeKey}`,
  body: 'Due Date: 2026-10-01',
  occurredAt: '2026-09-15T12:00:00Z',
});

async function noteRefs(
  connector: { createNotes(d: NoteDraft[]): Promise<{ ok: boolean; noteId?: string }[]> },
  drafts: NoteDraft[],
) {
  const results = await connector.createNotes(drafts);
  return results.map((r, i) => ({ accountId: drafts[i]?.accountId ?? '', noteId: r.noteId ?? '' }));
}

describe('HubSpot', () => {
  async function setup(): Promise<{ sandbox: RunningHubSpotSandbox; company: string }> {
    const sandbox = await startHubSpotSandbox({ rateLimits: false });
    closers.push(() => sandbox.close());
    return { sandbox, company: sandbox.store.createCompany({ name: 'Round Rock' }).id };
  }
  const connectorOf = (sandbox: RunningHubSpotSandbox) =>
    createHubSpotConnector({
      accessToken: sandbox.accessToken,
      basePath: sandbox.url,
      portalId: String(sandbox.portalId),
    });

  it('archives 100 notes with one read and one archive; asked again, it only reads', async () => {
    const { sandbox, company } = await setup();
    const connector = connectorOf(sandbox);
    const refs = await noteRefs(
      connector,
      Array.from({ length: 100 }, (_, i) => draft(company, `bi-${i}`)),
    );
    sandbox.stats.reset();
    const results = await connector.removeNotes(refs);
    expect(results.every((r) => r.outcome === 'removed')).toBe(true);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.read')).toBe(1);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.archive', 204)).toBe(1);
    expect(sandbox.store.notesOf(company)).toEqual([]);

    sandbox.stats.reset();
    const again = await connector.removeNotes(refs);
    expect(again.every((r) => r.outcome === 'already_gone')).toBe(true);
    expect(sandbox.stats.count()).toBe(1);
  });

  it('a 429 on the archive throws CrmRateLimitError and archives nothing; the retry removes them', async () => {
    const { sandbox, company } = await setup();
    const connector = connectorOf(sandbox);
    const refs = await noteRefs(connector, [draft(company, 'bi-a'), draft(company, 'bi-b')]);
    sandbox.faults.inject({ kind: 'status', status: 429, match: 'crm.objects.notes.batchApi.archive' });
    await expect(connector.removeNotes(refs)).rejects.toBeInstanceOf(CrmRateLimitError);
    expect(sandbox.store.notesOf(company)).toHaveLength(2);
    const retried = await connector.removeNotes(refs);
    expect(retried.map((r) => r.outcome)).toEqual(['removed', 'removed']);
  });

  it('a refused archive fails each note with HubSpot’s reason; nothing is archived', async () => {
    const { sandbox, company } = await setup();
    const connector = connectorOf(sandbox);
    const refs = await noteRefs(connector, [draft(company, 'bi-a'), draft(company, 'bi-b')]);
    sandbox.faults.inject({ kind: 'status', status: 400, match: 'crm.objects.notes.batchApi.archive' });
    const results = await connector.removeNotes(refs);
    for (const result of results) {
      expect(result).toMatchObject({ outcome: 'failed', error: { status: 400, permanent: false } });
      if (result.outcome === 'failed') expect(result.error.message).toMatch(/refused the whole batch/);
    }
    expect(sandbox.store.notesOf(company)).toHaveLength(2);
  });
});

describe('Salesforce', () => {
  async function setup(): Promise<RunningSalesforceSandbox> {
    const sandbox = await startSalesforceSandbox();
    closers.push(() => sandbox.close());
    sandbox.store.defineCustomField('Task', 'BuyerIntel_Key__c');
    sandbox.store.defineCustomField('ContentVersion', 'BuyerIntel_Key__c');
    return sandbox;
  }
  const connectorOf = (sandbox: RunningSalesforceSandbox, notes: 'task' | 'content-note') =>
    createSalesforceConnector({
      instanceUrl: sandbox.url,
      loginUrl: sandbox.url,
      accessToken: sandbox.accessToken,
      refreshToken: sandbox.refreshToken,
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      apiVersion: '62.0',
      orgId: sandbox.orgId,
      notes,
    });

  it('removes Tasks and ContentNotes in one delete, whichever form it writes now', async () => {
    const sandbox = await setup();
    const account = sandbox.store.create('Account', { Name: 'Austin' }).id;
    const [task] = await noteRefs(connectorOf(sandbox, 'task'), [draft(account, 'bi-task')]);
    const contentNotes = connectorOf(sandbox, 'content-note');
    const [note] = await noteRefs(contentNotes, [draft(account, 'bi-note')]);
    if (!task || !note) throw new Error('notes not created');
    sandbox.stats.reset();
    expect(await contentNotes.removeNotes([task, note])).toEqual([
      { ...task, outcome: 'removed' },
      { ...note, outcome: 'removed' },
    ]);
    expect(sandbox.stats.count('composite.sobjects.delete')).toBe(1);
    expect(sandbox.store.list('Task')).toEqual([]);
    expect(sandbox.store.list('ContentNote')).toEqual([]);
    expect(
      sandbox.store.list('ContentDocumentLink').filter((l) => l.values.get('LinkedEntityId') === account),
    ).toEqual([]);
  });

  it('sends no id of another kind of record: an Account id is refused before any call', async () => {
    const sandbox = await setup();
    const account = sandbox.store.create('Account', { Name: 'Austin' }).id;
    sandbox.stats.reset();
    const [result] = await connectorOf(sandbox, 'task').removeNotes([
      { accountId: account, noteId: account },
    ]);
    expect(result).toMatchObject({ outcome: 'failed', error: { permanent: true } });
    expect(sandbox.stats.count()).toBe(0);
    expect(sandbox.store.find('Account', account).id).toBe(account);
  });

  it('a call Salesforce fails throws a retryable error and deletes nothing; the retry removes the Task', async () => {
    const sandbox = await setup();
    const account = sandbox.store.create('Account', { Name: 'Austin' }).id;
    const connector = connectorOf(sandbox, 'task');
    const refs = await noteRefs(connector, [draft(account, 'bi-a')]);
    // UNABLE_TO_LOCK_ROW with a 400, which jsforce does not retry on its own (it would a 5xx, for 15 s).
    sandbox.faults.inject({ kind: 'status', status: 400, match: 'composite.sobjects.delete' });
    await expect(connector.removeNotes(refs)).rejects.toBeInstanceOf(SalesforceTransientError);
    expect(sandbox.store.list('Task')).toHaveLength(1);
    expect((await connector.removeNotes(refs)).map((r) => r.outcome)).toEqual(['removed']);
  });
});
