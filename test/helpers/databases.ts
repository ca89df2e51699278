// The databases the store's tests run on: the embedded PGlite always, and the real PostgreSQL at
// TEST_DATABASE_URL (each store in a schema of its own, dropped afterwards). Without TEST_DATABASE_URL
// the PostgreSQL variant is skipped, saying so — except in CI, where it fails: CI must test both.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DatabaseSettings } from '../../src/store/db.ts';
import { type Repositories, Store } from '../../src/store/store.ts';

export interface Variant {
  name: string;
  /** Why this variant cannot run here (skipped locally, failed in CI); undefined when it can. */
  unavailable?: string;
  /** A fresh, empty database (not migrated) and how to remove it. */
  fresh(): Promise<{ settings: DatabaseSettings; store: Store; drop(): Promise<void> }>;
}

const url = process.env.TEST_DATABASE_URL;

async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const VARIANTS: Variant[] = [
  {
    name: 'PGlite (embedded)',
    async fresh() {
      const settings = { pgliteDir: 'memory' };
      const store = new Store(settings);
      return { settings, store, drop: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL (TEST_DATABASE_URL)',
    ...(url
      ? {}
      : {
          unavailable:
            'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres; .ci/run sets it)',
        }),
    async fresh() {
      const schema = `test_${randomBytes(6).toString('hex')}`;
      await withClient(async (client) => {
        // The extension lives in public, so dropping a test's schema never drops it under another test.
        await client
          .query('create extension if not exists pg_trgm with schema public')
          .catch((err: Error) => {
            // Two test files creating it at once: one of them loses the race, and the extension is there.
            if (!/already exists|duplicate key/.test(err.message)) throw err;
          });
        await client.query(`create schema ${client.escapeIdentifier(schema)}`);
      });
      const settings = { url: url ?? '', schema };
      const store = new Store(settings);
      return {
        settings,
        store,
        drop: async () => {
          await store.close();
          await withClient((client) =>
            client.query(`drop schema ${client.escapeIdentifier(schema)} cascade`),
          );
        },
      };
    },
  },
];

/** In CI both variants must run: a missing TEST_DATABASE_URL is a failure there, not a skip. */
export const mustRunEverywhere = Boolean(process.env.CI);

/** A test that needs a real PostgreSQL: skipped with the reason here, failed in CI, when there is none. */
export function itWithPostgres(name: string, fn: () => Promise<void>, timeout?: number): void {
  if (url) it(name, fn, timeout);
  else if (mustRunEverywhere)
    it(name, () => {
      throw new Error(`CI must run this on PostgreSQL: TEST_DATABASE_URL is not set`);
    });
  else it.skip(`${name} — skipped: TEST_DATABASE_URL is not set (.ci/run sets it)`, () => {});
}

/**
 * A PostgreSQL database of its own on TEST_DATABASE_URL's server (for processes that take a
 * DATABASE_URL), migrated unless `migrated: false`; `drop` removes it. Undefined without TEST_DATABASE_URL.
 */
export async function freshPostgresDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!url) return undefined;
  const name = `bis_test_${randomBytes(6).toString('hex')}`;
  await withClient((client) => client.query(`create database ${client.escapeIdentifier(name)}`));
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  if (options.migrated !== false) {
    const store = new Store({ url: dbUrl.toString() });
    await store.migrate();
    await store.close();
  }
  return {
    url: dbUrl.toString(),
    drop: () =>
      withClient((client) =>
        client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`),
      ).then(() => undefined),
  };
}

/** Why a test that needs PostgreSQL does not run here, or undefined when it can. */
export const postgresUnavailable = url
  ? undefined
  : 'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres; .ci/run sets it)';

/**
 * `describe(title on <database>)` once per database: a database this machine lacks is a skipped test
 * saying why — a failing one in CI, which must run both.
 */
export function describeEachDatabase(title: string, body: (variant: Variant) => void): void {
  for (const variant of VARIANTS) {
    if (variant.unavailable) {
      const name = `${title} on ${variant.name}`;
      if (mustRunEverywhere)
        it(name, () => {
          throw new Error(`CI must run the store's tests on ${variant.name}: ${variant.unavailable}`);
        });
      else it.skip(`${name} — skipped: ${variant.unavailable}`, () => {});
      continue;
    }
    describe(`${title} on ${variant.name}`, () => body(variant));
  }
}

/** A fresh, migrated store of `variant` for the enclosing describe block, dropped after it. */
export function migratedStore(variant: Variant): { readonly store: Store; readonly repos: Repositories } {
  let opened: { store: Store; repos: Repositories; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    const { store, drop } = await variant.fresh();
    await store.migrate();
    opened = { store, repos: await store.open(), drop };
  });
  afterAll(async () => {
    await opened?.drop();
  });
  const get = () => {
    if (!opened) throw new Error('the store is opened in beforeAll');
    return opened;
  };
  return {
    get store() {
      return get().store;
    },
    get repos() {
      return get().repos;
    },
  };
}
