// The readiness question the service asks its system of record (serve's /readyz, a worker's /readyz):
// a database that answers says yes, one whose port is closed says no within the deadline, rather than
// hanging the probe or passing it.
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.ts';
import { freePort } from '../helpers/ports.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const opened: Store[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
});

describe('Store.answers', () => {
  it('is true for a database that answers', async () => {
    const store = new Store(await serviceDatabase());
    opened.push(store);
    expect(await store.answers()).toBe(true);
  });

  it('is false for a server that is not there', async () => {
    const store = new Store(
      { url: `postgres://postgres@127.0.0.1:${await freePort()}/none` },
      { onError: () => {} },
    );
    opened.push(store);
    expect(await store.answers(1_500)).toBe(false);
  });
});
