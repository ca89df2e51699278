// The per-account digest through real HTTP: the Buyer Intelligence sandbox, the HubSpot emulator (with
// the real HubSpot connector) and real Redis. Runs are pinned to scheduled times two weeks and one week
// ago, so the windows hold the sandbox's (real-time relative) signals.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import type { AccountRef, CrmConnector, NoteDraft } from '../../connectors/types.ts';
import type { SandboxRow } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type DigestDeps, DigestIncompleteError } from '../../src/digest/deps.ts';
import { accountStateKey, digestNoteKey, runPerAccountDigest } from '../../src/digest/per-account.ts';
import { runDigestNow } from '../../src/digest/run.ts';
import { parseDigestSettings } from '../../src/digest/settings.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { buyerPicker, DAY, databaseState, deleteKeys, mondayNoon, REDIS_URL, recording } from './helpers.ts';

const prefix = `test-digest-pa-${randomUUID().slice(0, 8)}`;
const database = databaseState();
const settings = parseDigestSettings({
  perAccount: { pattern: '0 12 * * 1', tz: 'UTC', lookbackDays: 7, maxSignals: 1 },
});

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let redis: Redis;
let ledgers: Ledgers;
let hubspot: CrmConnector;
const sent: NoteDraft[] = [];

// Two scheduled runs: S1 (week 1, window S1-7d..S1) and S2 = S1 + 7 days (week 2, window S1..S2).
const S1 = mondayNoon(Date.now() - 14 * DAY);
const S2 = S1 + 7 * DAY;
const weekOf = (t: number) => new Date(t).toISOString().slice(0, 10);

interface Chosen {
  buyerId: string;
  w1: SandboxRow[];
  w2: SandboxRow[];
  account: AccountRef;
}
const picks: Record<'hot' | 'once' | 'quiet' | 'crash', Chosen> = {} as Record<
  'hot' | 'once' | 'quiet' | 'crash',
  Chosen
>;

function deps(connector: CrmConnector = hubspot, now = S1): DigestDeps {
  return {
    buyerIntel: clientFor(bi).client,
    connectorFor: () => connector,
    ledgers,
    state: database.state,
    redis,
    prefix,
    settings,
    now: () => new Date(now),
  };
}

const tenant = () => String(hs.portalId);
const notesOn = (p: Chosen) => hs.store.notesOf(p.account.accountId);

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
  redis = new Redis(REDIS_URL);
  ledgers = new Ledgers(redis, `${prefix}:ledger`);
  hubspot = recording(
    createHubSpotConnector({ accessToken: hs.accessToken, portalId: tenant(), basePath: hs.url }),
    sent,
  );

  const pick = buyerPicker(S1, S2);
  const hot = pick((c) => c.w1.length >= 2 && c.w2.length >= 1);
  const once = pick((c) => c.w1.length >= 1 && c.w2.length === 0);
  const quiet = pick((c) => c.all > 0 && c.w1.length === 0 && c.w2.length === 0);
  const crash = pick((c) => c.w1.length >= 1 && c.w2.length === 0);
  for (const [name, c] of Object.entries({ hot, once, quiet, crash })) {
    const company = hs.store.createCompany({ name: `Digest ${name}` }, { source: 'CRM_UI' });
    picks[name as keyof typeof picks] = {
      buyerId: c.buyerId,
      w1: c.w1,
      w2: c.w2,
      account: { crm: 'hubspot', tenant: tenant(), accountId: company.id },
    };
  }
  for (const name of ['hot', 'once', 'quiet'] as const)
    await ledgers.recordMatch(picks[name].account, picks[name].buyerId);
});

afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
  await Promise.all([bi?.close(), hs?.close(), database.store.close()]);
});

describe('per-account digest', () => {
  it('writes one note per account with new signals, hottest first, and none for a quiet account', async () => {
    const result = await runPerAccountDigest(deps(), new Date(S1));
    expect(result.period).toBe(`week-${weekOf(S1)}`);
    expect(result.counts).toMatchObject({ written: 2, nothingNew: 1, failed: 0 });

    const { hot, once, quiet } = picks;
    expect(notesOn(hot)).toHaveLength(1);
    expect(notesOn(once)).toHaveLength(1);
    expect(notesOn(quiet)).toHaveLength(0);
    const keys = await hubspot.existingNoteKeys(hot.account.accountId);
    expect(keys).toEqual(new Set([digestNoteKey(hot.buyerId, `week-${weekOf(S1)}`)]));

    const note = sent.find((n) => n.accountId === hot.account.accountId);
    expect(note?.title).toBe(`Buyer intel digest — week of ${weekOf(S1)}: ${hot.w1.length} new signals`);
    // The top one (maxSignals 1), the hottest by the sandbox's hotness order, with type, title and date.
    const listed = (note?.body ?? '').split('\n').filter((l) => /^\d+\. \[/.test(l));
    expect(listed).toHaveLength(1);
    for (const [i, row] of hot.w1.slice(0, 1).entries()) {
      expect(listed[i]).toContain(`${i + 1}. [`);
      expect(listed[i]).toContain(`] ${row.name} — `);
      expect(listed[i]).toMatch(/ — \d{4}-\d{2}-\d{2}$/);
    }
    expect(note?.body).toContain(`…and ${hot.w1.length - 1} more`);
    expect(note?.occurredAt).toBe(new Date(S1).toISOString());
    const state = await database.state.get(accountStateKey(hot.account));
    expect(state).toMatchObject({ watermark: new Date(S1).toISOString(), period: `week-${weekOf(S1)}` });
    expect(state.pendingPeriod).toBeUndefined();
  });

  it('a second run in the same period writes nothing', async () => {
    const before = sent.length;
    const again = await runPerAccountDigest(deps(), new Date(S1));
    expect(again.counts).toMatchObject({ written: 0, alreadyWritten: 2, nothingNew: 1 });
    // Later in the same week (a `digest --now`, say): still the same period.
    const later = await runDigestNow(deps(hubspot, S1 + 2 * DAY), 'per-account');
    expect(later.period).toBe(`week-${weekOf(S1)}`);
    expect(later.counts.written).toBe(0);
    expect(sent.length).toBe(before);
    expect(notesOn(picks.hot)).toHaveLength(1);
    expect(notesOn(picks.once)).toHaveLength(1);
  });

  it('a crash between writing the note and recording it does not write it twice', async () => {
    const { crash } = picks;
    await ledgers.recordMatch(crash.account, crash.buyerId);
    const crashing = recording(hubspot, [], () => {
      throw new Error('worker died after the CRM call');
    });
    await expect(runPerAccountDigest(deps(crashing), new Date(S1))).rejects.toBeInstanceOf(
      DigestIncompleteError,
    );
    expect(notesOn(crash)).toHaveLength(1);
    const pending = await database.state.get(accountStateKey(crash.account));
    expect(pending.pendingPeriod).toBe(`week-${weekOf(S1)}`);
    expect(pending.watermark).toBeUndefined();

    const retry = await runPerAccountDigest(deps(), new Date(S1));
    expect(retry.counts).toMatchObject({ written: 0, recovered: 1, alreadyWritten: 2, nothingNew: 1 });
    expect(notesOn(crash)).toHaveLength(1);
    const state = await database.state.get(accountStateKey(crash.account));
    expect(state).toMatchObject({ watermark: new Date(S1).toISOString(), period: `week-${weekOf(S1)}` });
  });

  it('the next period writes again only for accounts with signals since the last digest', async () => {
    const before = sent.length;
    const result = await runPerAccountDigest(deps(hubspot, S2), new Date(S2));
    expect(result.period).toBe(`week-${weekOf(S2)}`);
    expect(result.counts).toMatchObject({ written: 1, nothingNew: 3, failed: 0 });
    const { hot, once, quiet, crash } = picks;
    expect(notesOn(hot)).toHaveLength(2);
    expect(notesOn(once)).toHaveLength(1);
    expect(notesOn(quiet)).toHaveLength(0);
    expect(notesOn(crash)).toHaveLength(1);
    const fresh = sent.slice(before);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.title).toBe(
      `Buyer intel digest — week of ${weekOf(S2)}: ${hot.w2.length} new signal${hot.w2.length === 1 ? '' : 's'}`,
    );
    // Only signals since the previous digest: the first row listed is the hottest of week 2.
    expect(fresh[0]?.body).toContain(`1. [`);
    expect(fresh[0]?.body).toContain(`] ${hot.w2[0]?.name} — `);
    expect(fresh[0]?.dedupeKey).toBe(digestNoteKey(hot.buyerId, `week-${weekOf(S2)}`));
  });
});
