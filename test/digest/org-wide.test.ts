// The org-wide digest: the sandbox's cross-buyer feed (hotness order) kept to matched buyers, delivered as
// a note on a HubSpot emulator record and POSTed to a local HTTP receiver standing in for Slack. A non-2xx
// answer fails the run; the retry posts once and does not write the note again.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import type { CrmConnector, NoteDraft } from '../../connectors/types.ts';
import type { SandboxRow } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type DigestDeps, DigestIncompleteError } from '../../src/digest/deps.ts';
import { orgDigestNoteKey, runOrgWideDigest } from '../../src/digest/org-wide.ts';
import { type DigestSettings, parseDigestSettings } from '../../src/digest/settings.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { clientFor, sharedDataset, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { DAY, databaseState, deleteKeys, expectedRows, mondayNoon, REDIS_URL, recording } from './helpers.ts';

const prefix = `test-digest-org-${randomUUID().slice(0, 8)}`;
const database = databaseState();
const SECRET_PATH = '/services/T0001/B0002/s3cr3t-webhook-token';
const S1 = mondayNoon(Date.now() - 14 * DAY);
const period = `week-${new Date(S1).toISOString().slice(0, 10)}`;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let redis: Redis;
let ledgers: Ledgers;
let hubspot: CrmConnector;
let settings: DigestSettings;
let targetId: string;
let expected: SandboxRow[];
const sent: NoteDraft[] = [];
const logs: string[] = [];

// The stand-in for Slack: answers with the next queued status (200 once the queue is empty).
let receiver: Server;
let receiverUrl: string;
const statuses: number[] = [];
const posts: { path: string; contentType: string | undefined; body: unknown }[] = [];

function deps(): DigestDeps {
  return {
    buyerIntel: clientFor(bi).client,
    connectorFor: () => hubspot,
    ledgers,
    state: database.state,
    redis,
    prefix,
    settings,
    now: () => new Date(S1),
    log: {
      info: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`),
      warn: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    },
  };
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: JSON.parse(raw) });
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
  redis = new Redis(REDIS_URL);
  ledgers = new Ledgers(redis, `${prefix}:ledger`);
  const tenant = String(hs.portalId);
  hubspot = recording(
    createHubSpotConnector({ accessToken: hs.accessToken, portalId: tenant, basePath: hs.url }),
    sent,
  );
  targetId = hs.store.createCompany({ name: 'Our sales leadership' }, { source: 'CRM_UI' }).id;
  settings = parseDigestSettings({
    orgWide: {
      pattern: '0 12 * * 1',
      tz: 'UTC',
      lookbackDays: 7,
      maxSignals: 5,
      maxPages: 100,
      target: { crm: 'hubspot', tenant, accountId: targetId },
      slackWebhookUrl: `${receiverUrl}${SECRET_PATH}`,
    },
  });

  // Thirty matched buyers with signals in the window (none of the org's ten hottest), a few without; the
  // other buyers stay unmatched, so the digest must pick among matched buyers, not the org's hottest.
  const dataset = sharedDataset();
  const everyone = expectedRows(dataset, new Set(dataset.buyers.map((b) => b.id)), S1 - 7 * DAY, S1);
  const hottest = new Set(everyone.slice(0, 10).map((r) => r.buyerId));
  const active = dataset.buyers.filter(
    (b) => !hottest.has(b.id) && expectedRows(dataset, b.id, S1 - 7 * DAY, S1).length > 0,
  );
  const quiet = dataset.buyers.filter((b) => !expectedRows(dataset, b.id, S1 - 7 * DAY, S1).length);
  const matched = [...active.slice(0, 30), ...quiet.slice(0, 5)];
  for (const [i, b] of matched.entries())
    await ledgers.recordMatch({ crm: 'hubspot', tenant, accountId: `acct-${i}` }, b.id);
  expected = expectedRows(dataset, new Set(matched.map((b) => b.id)), S1 - 7 * DAY, S1);
  expect(expected.length).toBeGreaterThan(5);
  expect(everyone[0]?.rowId).not.toBe(expected[0]?.rowId);
});

afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
  await Promise.all([bi?.close(), hs?.close(), database.store.close()]);
  await new Promise((r) => receiver?.close(r));
});

describe('org-wide digest', () => {
  const title = () =>
    `Buyer intel digest (matched accounts) — week of ${period.slice(5)}: ${expected.length} new signals`;

  it('a non-2xx from the webhook fails the run (to retry) after the note is on the target record', async () => {
    statuses.push(500);
    const run = runOrgWideDigest(deps(), new Date(S1));
    await expect(run).rejects.toBeInstanceOf(DigestIncompleteError);
    await expect(run).rejects.toThrow(/Slack webhook answered 500/);
    expect(posts).toHaveLength(1);
    expect(hs.store.notesOf(targetId)).toHaveLength(1);
    expect(await hubspot.existingNoteKeys(targetId)).toEqual(new Set([orgDigestNoteKey(period)]));
    expect(sent[0]?.title).toBe(title());
  });

  it('the retry posts the digest once, with text and blocks, and does not write the note again', async () => {
    const result = await runOrgWideDigest(deps(), new Date(S1));
    expect(result.delivered).toEqual({ note: true, slack: true });
    expect(result.counts.written).toBe(1);
    expect(posts).toHaveLength(2);
    expect(hs.store.notesOf(targetId)).toHaveLength(1);
    expect(sent).toHaveLength(1);

    const post = posts[1];
    expect(post?.path).toBe(SECRET_PATH);
    expect(post?.contentType).toBe('application/json');
    const body = post?.body as { text: string; blocks: { type: string; text?: { text: string } }[] };
    const lines = body.text.split('\n');
    expect(lines[0]).toBe(title());
    // The five hottest signals of matched buyers, in hotness order.
    expect(lines).toHaveLength(6);
    for (const [i, row] of expected.slice(0, 5).entries()) {
      expect(lines[i + 1]).toContain(`${i + 1}. [`);
      expect(lines[i + 1]).toContain(`] ${row.name} — `);
    }
    expect(body.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: title(), emoji: false },
    });
    const sections = body.blocks.filter((b) => b.type === 'section');
    expect(sections).toHaveLength(5);
    for (const s of sections) expect(s.text?.text).toMatch(/^\d\. \*.+\*\n.+ · \d{4}-\d{2}-\d{2}$/s);
    expect(body.blocks.at(-1)?.type).toBe('context');

    // The note lists the same signals.
    for (const row of expected.slice(0, 5)) expect(sent[0]?.body).toContain(row.name);
  });

  it('a third run in the same period delivers nothing', async () => {
    const result = await runOrgWideDigest(deps(), new Date(S1 + 3600_000));
    expect(result.counts).toMatchObject({ written: 0, alreadyWritten: 1 });
    expect(posts).toHaveLength(2);
    expect(hs.store.notesOf(targetId)).toHaveLength(1);
  });

  it('never logs the webhook URL', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).not.toContain(SECRET_PATH);
      expect(line).not.toContain('s3cr3t');
    }
  });
});
