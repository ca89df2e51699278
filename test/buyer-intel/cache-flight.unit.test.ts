// A cached call is given up only when every caller has given up: then a request still waiting for its
// slot in the provider's pace is never sent. Counted at the sandbox over real HTTP; no Redis.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../../src/buyer-intel/cache.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
  // A first search builds what the sandbox caches (over 100 ms): done here, so that each test's first
  // search leaves at once and the next one waits for its slot.
  await clientFor(sandbox).client.searchBuyers({ buyerName: 'Travis County' });
  sandbox.stats.reset();
});
afterAll(() => sandbox.close());
afterEach(() => sandbox.stats.reset());

const searches = () => sandbox.stats.count('searchBuyers');

/** A cache over a client paced at one request every 400 ms: a second call waits for its slot. */
function paced() {
  const { client } = clientFor(sandbox, { rateLimit: { ratePerSecond: 2.5, burst: 1 } });
  return cachedBuyerIntel(client, { ttlMs: 0, maxEntries: 100 });
}

it('a call whose only caller gave up while it waited for its slot is never sent', async () => {
  const cache = paced();
  await cache.searchBuyers({ buyerName: 'Travis County' });
  const caller = new AbortController();
  const waiting = cache.searchBuyers({ buyerName: 'Erie County' }, { signal: caller.signal });
  caller.abort();
  await expect(waiting).rejects.toThrow();
  // The pace serves its waiters in order: once the next call has had its slot, the given-up one
  // would have had its own before it.
  await cache.searchBuyers({ buyerName: 'Austin ISD' });
  expect(searches()).toBe(2);
});

it('one caller giving up fails no other: the call goes for the caller still waiting, or one without a signal', async () => {
  const cache = paced();
  await cache.searchBuyers({ buyerName: 'Travis County' });
  const first = new AbortController();
  const second = new AbortController();
  const a = cache.searchBuyers({ buyerName: 'Erie County' }, { signal: first.signal });
  const b = cache.searchBuyers({ buyerName: 'Erie County' }, { signal: second.signal });
  const c = cache.searchBuyers({ buyerName: 'Austin ISD' }, { signal: first.signal });
  const d = cache.searchBuyers({ buyerName: 'Austin ISD' });
  first.abort();
  await expect(a).rejects.toThrow();
  await expect(c).rejects.toThrow();
  expect((await b).buyers.length).toBeGreaterThan(0);
  expect((await d).buyers.length).toBeGreaterThan(0);
  expect(searches()).toBe(3);
});

it('a caller that comes after every other gave up gets its own call, not their abort', async () => {
  const cache = paced();
  await cache.searchBuyers({ buyerName: 'Travis County' });
  const gone = new AbortController();
  const left = cache.searchBuyers({ buyerName: 'Erie County' }, { signal: gone.signal });
  gone.abort();
  const late = cache.searchBuyers({ buyerName: 'Erie County' });
  await expect(left).rejects.toThrow();
  expect((await late).buyers.length).toBeGreaterThan(0);
  expect(searches()).toBe(2);
});
