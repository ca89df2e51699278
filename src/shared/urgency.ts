// Whether the work in progress is one a person waits on (a webhook's new account, a refresh button, a
// review decision) rather than a backfill's. Carried by the async context, not by every call's options:
// the resolver, the fetch step and the cache between a job and the provider's pace need not know. The
// provider's pace (src/buyer-intel/shared-rate.ts) lets such requests ahead of a backfill's queue, so a
// new account is not served behind a 250,000-account backfill's waiting calls (issue #42: ~20 s).
import { AsyncLocalStorage } from 'node:async_hooks';

const urgency = new AsyncLocalStorage<true>();

/** Runs `fn` (and everything it awaits) as work a person waits on. */
export function runUrgent<T>(fn: () => T): T {
  return urgency.run(true, fn);
}

/** Whether the current async context is work a person waits on. */
export function isUrgent(): boolean {
  return urgency.getStore() === true;
}
