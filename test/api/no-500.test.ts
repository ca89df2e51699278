// No input answers 5xx: the attacks of issue 27 (NULs and lone surrogates in searches, states and
// reasons, crafted keyset cursors, BullMQ's own key names as job ids) and of issue 45 (a cursor dated
// before 4713 BC, a body nested 10,000 levels deep) each get a 4xx naming the problem; then a seeded
// fast-check property sends 10,000 generated requests over every route kind — every route of our
// OpenAPI document (with an API key, signed as the HubSpot card, signed as the Salesforce quick
// action), every admin route, HubSpot's webhook, Salesforce's Outbound Messages and the provider's
// Standard Webhooks, mostly correctly signed so that the bodies reach the parsers — asserting each
// answer is below 500 and the process still serves; a failure shrinks to a minimal request.
// bench/fuzz.ts runs the same generators for 100,000 and more (CONTRIBUTING.md, "The fuzz"). Real
// HTTP, real Redis, the emulators; no worker runs (queued jobs stay queued and are removed after).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULLMQ_KEYS, cursorOf } from '../helpers/fuzz.ts';
import type { Auth, FuzzIds } from '../helpers/fuzz-routes.ts';
import { count, type FuzzStats, runFuzz } from '../helpers/fuzz-run.ts';
import { type Answer, type FuzzTarget, startFuzzTarget } from '../helpers/fuzz-target.ts';

/** 10,000 generated requests by default (FUZZ_RUNS to change; FUZZ_SEED + FUZZ_PATH replay a failure). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 27);
const REPLAY_PATH = process.env.FUZZ_PATH;

let target: FuzzTarget;
let ids: FuzzIds;

beforeAll(async () => {
  target = await startFuzzTarget('no500');
  ids = target.ids;
}, 60_000);
afterAll(async () => {
  await target?.close();
});

const API: Auth = { as: 'api-key' };
const ADMIN: Auth = { as: 'admin' };
const NONE: Auth = { as: 'none' };
const WITH_AND_WITHOUT_KEY: Auth[] = [API, NONE];

const send = (method: string, path: string, auth: Auth, body?: string): Promise<Answer> =>
  target.send({
    kind: auth === ADMIN ? 'admin' : 'api',
    route: path,
    method,
    path,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
    auth,
  });

describe('the attacks that answered 500', () => {
  it('refuses a NUL in a review search or state, on the API and the admin page', async () => {
    // A date JavaScript reads (year 12345) that PostgreSQL does not.
    expect((await send('GET', '/api/review?until=%2512345', API)).status).toBe(400);
    for (const query of ['q=a%00b', 'state=%00', 'buyerType=x%00']) {
      const api = await send('GET', `/api/review?${query}`, API);
      expect(api.status, query).toBe(400);
      expect(api.text).toContain('NUL');
      const page = await send('GET', `/admin/review?${query}`, ADMIN);
      expect(page.status, query).toBe(400);
    }
  });

  it('refuses a NUL or a lone surrogate in a reject reason or a re-search name', async () => {
    for (const reason of ['\u0000', 'private\ud800', '\udc00']) {
      const body = JSON.stringify({ reason });
      const res = await send('POST', `/api/accounts/hubspot/${ids.companyId}/reject`, API, body);
      expect(res.status, JSON.stringify(reason)).toBe(400);
      expect(res.text).toMatch(/NUL|surrogate/);
      const admin = await send(
        'POST',
        '/admin/api/review/reject',
        ADMIN,
        JSON.stringify({ crm: 'hubspot', tenant: ids.portalId, accountId: ids.companyId, reason }),
      );
      expect(admin.status, JSON.stringify(reason)).toBe(400);
    }
    const research = JSON.stringify({ name: 'Austin\u0000' });
    expect(
      (await send('POST', `/api/accounts/hubspot/${ids.companyId}/research`, API, research)).status,
    ).toBe(400);
  });

  it('refuses crafted keyset cursors: a 19-digit id, a date that is none, a key of the wrong type', async () => {
    const cursors = [
      `after=${cursorOf([0.5, '9999999999999999999'])}`,
      `sort=date&after=${cursorOf(['not a date', '1'])}`,
      `sort=date&after=${cursorOf(['2026-13-45T00:00:00Z', '1'])}`,
      `after=${cursorOf(['0.5', '1'])}`,
      // Dates Date.parse takes and PostgreSQL's timestamps do not (before 4713 BC, after 294276 AD).
      `sort=date&after=${cursorOf(['-004714-01-01T00:00:00.000Z', '1'])}`,
      `sort=date&after=${cursorOf(['+275000-01-01T00:00:00.000Z', '1'])}`,
    ];
    for (const query of cursors) {
      const res = await send('GET', `/api/review?${query}`, API);
      expect(res.status, query).toBe(400);
      expect(res.text).toContain('after');
      expect((await send('GET', `/admin/review?${query}`, ADMIN)).status, query).toBe(400);
    }
  });

  it('refuses a body nested 10,000 levels deep (20 kB, under the size cap) with a 400, on every API POST', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const path of [
      '/api/refresh',
      `/api/accounts/hubspot/${ids.companyId}/research`,
      '/api/review/approve',
    ]) {
      for (const auth of WITH_AND_WITHOUT_KEY) {
        const res = await send('POST', path, auth, deep);
        expect(res.status, path).toBeLessThan(500);
        if (auth === API)
          expect([res.status, res.text], path).toEqual([400, expect.stringContaining('deeper than 32')]);
      }
    }
    // The admin API's own cap is 16 kB: 5,000 levels fit under it.
    const admin = await send('POST', '/admin/api/retry', ADMIN, `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    expect([admin.status, admin.text]).toEqual([400, expect.stringContaining('deeper than 32')]);
  });

  it("answers 404 for BullMQ's own key names used as job ids", async () => {
    for (const id of BULLMQ_KEYS) {
      const res = await send('GET', `/api/jobs/${id}`, API);
      expect(res.status, id).toBe(404);
    }
  });
});

describe('fuzz: every route kind', () => {
  it(`answers every one of ${RUNS} generated requests below 500, and still serves`, async () => {
    const stats: FuzzStats = await runFuzz(target, {
      runs: RUNS,
      seed: SEED,
      path: REPLAY_PATH,
      mode: 'assert',
    });
    expect(stats.sent).toBeGreaterThanOrEqual(RUNS);
    expect(await target.healthy()).toBe(true);
    if (REPLAY_PATH) return;
    // The fuzz reached past authentication and validation: most signed requests were taken as signed,
    // and on every kind some were answered 2xx (signed API calls: the values seldom all fit at once).
    for (const kind of stats.byKind.keys()) {
      const all = count(stats, kind);
      expect(count(stats, kind, 401, 402), kind).toBeLessThan(all / 2);
      if (!kind.endsWith('-signed')) expect(count(stats, kind, 200, 300), kind).toBeGreaterThan(all / 100);
    }
    expect(stats.byKind.size).toBe(7);
  }, 600_000);
});
