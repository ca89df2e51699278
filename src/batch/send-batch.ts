// One popped batch of a shared channel: items past their deadline are skipped (their submitter has
// given up), the rest go out in one call; this process's items settle in place (with the error object
// itself), the other processes' answers are gathered into one reply payload per process.
import { decodeItem, factsOf, type WireReply } from './wire.ts';

export interface Waiter {
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Sends one popped batch; the answers for other processes, one payload per process. */
export async function sendBatch<I, O>(
  raw: string[],
  send: (items: I[]) => Promise<O[]>,
  pid: string,
  waiters: ReadonlyMap<string, Waiter>,
  replyList: (processId: string) => string,
): Promise<[list: string, payload: string][]> {
  const now = Date.now();
  const items = raw.flatMap((r) => {
    const item = decodeItem(r);
    return item && item.d > now ? [item] : [];
  });
  if (!items.length) return [];
  let outcome: (i: number) => WireReply;
  let local: (i: number, w: Waiter) => void;
  try {
    const results = await send(items.map((i) => i.v as I));
    if (results.length !== items.length)
      throw new Error(`batch send returned ${results.length} results for ${items.length} items`);
    outcome = (i) => [items[i]?.i ?? '', 1, results[i]];
    local = (i, w) => w.resolve(results[i]);
  } catch (err) {
    const facts = factsOf(err);
    outcome = (i) => [items[i]?.i ?? '', 0, facts];
    local = (_i, w) => w.reject(err);
  }
  const byProcess = new Map<string, WireReply[]>();
  for (const [i, item] of items.entries()) {
    const waiter = item.p === pid ? waiters.get(item.i) : undefined;
    if (waiter) local(i, waiter);
    else if (item.p !== pid) {
      const list = byProcess.get(item.p) ?? [];
      list.push(outcome(i));
      byProcess.set(item.p, list);
    }
  }
  return [...byProcess].map(([p, list]) => [replyList(p), JSON.stringify(list)]);
}
