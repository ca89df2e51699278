// What a worker process takes from the queue is weighed in accounts: with chunks of many accounts it
// stops fetching once it holds about twice its account slots, so one process never takes the whole
// backlog while another idles; single jobs count one each, up to the slots, as before.
import { describe, expect, it } from 'vitest';
import { WorkerLoad } from '../../queues/worker-load.ts';

const single = (id: string) =>
  ({ id, data: { crm: 'hubspot', tenant: '1', accountId: id, trigger: 'webhook' } }) as const;
const chunk = (id: string, n: number) =>
  ({
    id,
    data: {
      crm: 'hubspot',
      tenant: '1',
      accountIds: Array.from({ length: n }, (_, i) => `${id}-${i}`),
      trigger: 'backfill',
      run: 'r',
    },
  }) as const;

describe('a worker’s load', () => {
  it('fetches single jobs up to its slots', () => {
    const load = new WorkerLoad(10);
    expect(load.room()).toBe(10);
    for (let i = 0; i < 10; i++) load.held(single(`s${i}`));
    expect(load.room()).toBe(0);
    load.done('s3');
    expect(load.room()).toBe(1);
  });

  it('takes a second chunk to start as the first frees slots, not a third; more as accounts finish', () => {
    const load = new WorkerLoad(10);
    load.held(chunk('c1', 10));
    expect(load.room()).toBe(10);
    load.held(chunk('c2', 10));
    expect(load.room()).toBe(0);
    load.accountsDone('c1', 4);
    expect(load.room()).toBe(4);
    load.done('c1');
    expect(load.room()).toBe(10);
    load.held(chunk('c2', 10)); // the same job seen again is not counted twice
    expect(load.room()).toBe(10);
  });
});
