// A job that failed for good marks its accounts 'error' in the store and the CRM, except those its run
// already finished: a backfill chunk failing for good names every account it held, and the ones it
// wrote keep their outcome, with nothing of ours set over it in the CRM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markFinalFailure } from '../../src/enrich-job/final-failure.ts';
import type { LogPort } from '../../src/shared/log.ts';
import { Store } from '../../src/store/store.ts';

const quiet: LogPort = { info: () => undefined, warn: () => undefined };
let store: Store;
beforeAll(() => {
  store = new Store({ pgliteDir: 'memory' });
});
afterAll(async () => {
  await store.close();
});

const account = (accountId: string) => ({ crm: 'hubspot' as const, tenant: 'p1', accountId });

describe('a final failure', () => {
  it('leaves an account its run already finished, and marks the others', async () => {
    const { outcomes } = await store.open();
    await outcomes.record({
      ...account('done'),
      accountName: 'City of Austin',
      state: 'TX',
      status: 'enriched',
      matchedBy: 'name',
      buyerId: 'b1',
      buyerName: 'City of Austin',
      buyerType: 'City',
      confidence: 0.95,
      reason: 'name and state match',
      candidates: [],
      detail: {
        source: 'search',
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      trigger: 'backfill',
      runId: '7',
      jobId: 'chunk-1',
      at: new Date(),
    });
    const writes: string[] = [];
    const mark = markFinalFailure({
      store,
      log: quiet,
      writeAccount: async (_crm, _tenant, update) => {
        writes.push(update.accountId);
        return [] as never;
      },
    });
    const stalled = 'job stalled more than allowable limit';
    for (const id of ['done', 'never'])
      await mark({ ...account(id), trigger: 'backfill', runId: '7' }, stalled, 'chunk-1');
    expect(writes).toEqual(['never']);
    expect(await outcomes.get(account('done'))).toMatchObject({ status: 'enriched', runId: '7' });
    // Another run's outcome is no reason to skip: that account failed in this one.
    await mark({ ...account('done'), trigger: 'refresh', runId: '8' }, 'CRM refused', 'job-2');

    expect(writes).toEqual(['never', 'done']);
    expect(await outcomes.get(account('never'))).toMatchObject({ status: 'error', error: stalled });
    expect(await outcomes.get(account('done'))).toMatchObject({ status: 'error', runId: '8' });
  });
});
