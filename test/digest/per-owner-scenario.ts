// The per-owner digest end to end, the same story on each CRM: the Buyer Intelligence sandbox, the CRM's
// emulator with its real connector (ownership read through the CRM's own APIs), the SMTP sink, the
// Slack stand-in, real Redis (ledgers, lock) and the digest state in an embedded database.
// Ann owns two matched accounts with new signals, Bob one, Cy one whose buyer was quiet; one matched
// account with signals has no owner we can reach. Runs are pinned to scheduled times two weeks and one
// week ago, so their windows hold the sandbox's (real-time relative) signals. Dee owns an account with
// new signals but has left (deactivated): nobody can be reached for it. The connection's own user (the
// integration user the sync signs in as) owns an account with new signals too: it is no rep, it gets none.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../connectors/types.ts';
import type { SandboxRow } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSlackStandIn, startSlackStandIn } from '../../emulators/slack/server.ts';
import { type RunningSmtpSink, startSmtpSink } from '../../emulators/smtp/sink.ts';
import { type DigestDeps, DigestIncompleteError } from '../../src/digest/deps.ts';
import { ownerChannelsFrom } from '../../src/digest/owner-channels.ts';
import { ownerStateKey, runPerOwnerDigest } from '../../src/digest/per-owner.ts';
import { parseDigestSettings } from '../../src/digest/settings.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { buyerPicker, DAY, databaseState, deleteKeys, mondayNoon, REDIS_URL } from './helpers.ts';

/** One CRM as the scenario needs it: its emulator started, owners and owned accounts made there. */
export interface OwnerCrm {
  kind: string;
  start(): Promise<{ tenant: string; connector: CrmConnector; close(): Promise<void> }>;
  /** Adds a user of the CRM who can own accounts; returns the id an account's owner field holds. */
  addOwner(email: string, first: string, last: string): Promise<string>;
  /** Creates an account as a person would, owned by `ownerId`. */
  addAccount(name: string, ownerId: string): Promise<string>;
  /** The user leaves: deactivated in the CRM, their accounts still theirs. */
  deactivateOwner(ownerId: string): Promise<void>;
  /**
   * The user the connector signs in as, as the CRM lists it among its users (an owner id and email):
   * it owns what the sync creates, and must get no digest.
   */
  integrationOwner(): Promise<{ id: string; email: string }>;
}

const S1 = mondayNoon(Date.now() - 14 * DAY);
const S2 = S1 + 7 * DAY;
const week = (t: number) => `week-${new Date(t).toISOString().slice(0, 10)}`;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

export function describeOwnerDigest(crm: OwnerCrm): void {
  const prefix = `test-digest-po-${crm.kind}-${randomUUID().slice(0, 8)}`;
  const database = databaseState();
  let bi: RunningBuyerIntelSandbox;
  let smtp: RunningSmtpSink;
  let slack: RunningSlackStandIn;
  let redis: Redis;
  let ledgers: Ledgers;
  let tenant: string;
  let connector: CrmConnector;
  let closeCrm: () => Promise<void>;
  const owners: Record<'ann' | 'bob' | 'cy' | 'dee', string> = { ann: '', bob: '', cy: '', dee: '' };
  const email = {
    ann: 'ann@rep.example',
    bob: 'bob@rep.example',
    cy: 'cy@rep.example',
    dee: 'dee@rep.example',
  };
  /** Per owner, the names of the rows each window should list. */
  const expected = { ann: { w1: [] as string[], w2: [] as string[] }, bob: { w1: [] as string[] } };
  let unownedRows: SandboxRow[] = [];
  let integration = { id: '', email: '' };

  const deps = (): DigestDeps => {
    const settings = parseDigestSettings({
      perOwner: {
        pattern: '0 12 * * 1',
        lookbackDays: 7,
        maxSignals: 50,
        channels: ['email', 'slack'],
        email: { smtpUrl: smtp.url, from: 'digest@buyer-intel.example' },
        slack: { botToken: slack.token, apiUrl: slack.apiUrl },
      },
    });
    return {
      buyerIntel: clientFor(bi).client,
      connectorFor: () => connector,
      ledgers,
      state: database.state,
      redis,
      prefix,
      settings,
      ...(settings.perOwner ? { ownerChannels: ownerChannelsFrom(settings.perOwner) } : {}),
      now: () => new Date(S1),
    };
  };
  const mailTo = (who: keyof typeof email) => smtp.messages.filter((m) => m.to.includes(email[who]));
  const dmsTo = (who: keyof typeof email) => slack.messages.filter((m) => m.email === email[who]);

  beforeAll(async () => {
    [bi, smtp, slack] = await Promise.all([startSandbox(), startSmtpSink(), startSlackStandIn()]);
    const started = await crm.start();
    ({ tenant, connector } = started);
    closeCrm = started.close;
    redis = new Redis(REDIS_URL);
    ledgers = new Ledgers(redis, `${prefix}:ledger`);

    const pick = buyerPicker(S1, S2);
    const annHot = pick((c) => c.w1.length >= 2 && c.w2.length >= 1);
    const annOnce = pick((c) => c.w1.length >= 1 && c.w2.length === 0);
    const bobs = pick((c) => c.w1.length >= 1 && c.w2.length === 0);
    const quiet = pick((c) => c.all > 0 && c.w1.length === 0 && c.w2.length === 0);
    const unowned = pick((c) => c.w1.length >= 1);
    const synced = pick((c) => c.w1.length >= 1);
    expected.ann.w1 = [...annHot.w1, ...annOnce.w1].map((r) => r.name ?? '');
    expected.ann.w2 = annHot.w2.map((r) => r.name ?? '');
    expected.bob.w1 = bobs.w1.map((r) => r.name ?? '');
    unownedRows = unowned.w1;

    owners.ann = await crm.addOwner(email.ann, 'Ann', 'Archer');
    owners.bob = await crm.addOwner(email.bob, 'Bob', 'Baker');
    owners.cy = await crm.addOwner(email.cy, 'Cy', 'Cole');
    owners.dee = await crm.addOwner(email.dee, 'Dee', 'Dunn');
    slack.addUser(email.ann, 'ann');
    slack.addUser(email.cy, 'cy');
    // Bob has no Slack account: his digest goes by email only.
    const accounts: [string, string, string][] = [
      ['Ann Hot District', annHot.buyerId, owners.ann],
      ['Ann Once County', annOnce.buyerId, owners.ann],
      ['Bob City', bobs.buyerId, owners.bob],
      ['Cy Quiet College', quiet.buyerId, owners.cy],
      ['Dee Left Township', unowned.buyerId, owners.dee],
    ];
    integration = await crm.integrationOwner();
    accounts.push(['Sync Made Borough', synced.buyerId, integration.id]);
    for (const [name, buyerId, ownerId] of accounts) {
      const accountId = await crm.addAccount(name, ownerId);
      await ledgers.recordMatch({ crm: crm.kind, tenant, accountId }, buyerId);
    }
    await crm.deactivateOwner(owners.dee);
  });

  afterAll(async () => {
    if (redis) {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
    await Promise.all([bi?.close(), smtp?.close(), slack?.close(), closeCrm?.(), database.store.close()]);
  });

  describe(`per-owner digest on ${crm.kind}`, () => {
    it("sends each rep one digest of exactly their accounts' new signals, even with two runs at once", async () => {
      // Two workers running the same slot (the Redis lock bypassed): the database claims decide.
      const runs = await Promise.allSettled([
        runPerOwnerDigest(deps(), new Date(S1)),
        runPerOwnerDigest(deps(), new Date(S1)),
      ]);
      for (const r of runs)
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DigestIncompleteError);
      // A delivery one run had claimed made the other fail for a retry; the queue's retry settles the slot.
      const retry = await runPerOwnerDigest(deps(), new Date(S1));
      expect(retry.counts.failed).toBe(0);
      const results = [
        ...runs.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as DigestIncompleteError).result)),
        retry,
      ];
      // Bob is not in Slack: said, and settled for good (the retry does not ask again); his email went.
      const bobFailures = results
        .flatMap((r) => r.failures)
        .filter((f) => f.account === `${crm.kind}:${tenant}:owner ${owners.bob}`);
      expect(bobFailures.some((f) => f.reason.includes('Slack refused (users_not_found)'))).toBe(true);

      const [annMail, ...annMore] = mailTo('ann');
      expect(annMore).toHaveLength(0);
      // The subject and the text name the same days: the week looked back over, up to the run.
      const window1 = `${day(S1 - 7 * DAY)} to ${day(S1)}`;
      expect(annMail?.subject).toBe(
        `Buyer intel — ${window1}: ${expected.ann.w1.length} new signals on 2 of your accounts`,
      );
      expect(annMail?.text).toContain(`on the accounts you own, ${window1}, hottest first:`);
      const listed = (text: string) => text.split('\n').filter((l) => /^ {2}\d+\. \[/.test(l));
      expect(listed(annMail?.text ?? '')).toHaveLength(expected.ann.w1.length);
      for (const name of expected.ann.w1) expect(annMail?.text).toContain(`] ${name} — `);
      for (const name of expected.bob.w1) expect(annMail?.text).not.toContain(`] ${name} — `);
      for (const row of unownedRows) expect(annMail?.text).not.toContain(`] ${row.name} — `);
      expect(annMail?.text).toContain('Ann Hot District');
      expect(annMail?.text.startsWith('Hi Ann Archer,')).toBe(true);

      const [bobMail, ...bobMore] = mailTo('bob');
      expect(bobMore).toHaveLength(0);
      expect(listed(bobMail?.text ?? '')).toHaveLength(expected.bob.w1.length);
      for (const name of expected.bob.w1) expect(bobMail?.text).toContain(`] ${name} — `);

      // Slack: Ann's DM holds her signals; Bob is not in Slack; Cy had nothing new.
      expect(dmsTo('ann')).toHaveLength(1);
      expect(dmsTo('ann')[0]?.blocks.length).toBeGreaterThan(1);
      // Slack mrkdwn escapes &, < and >.
      const slackText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      const annDm = JSON.stringify(dmsTo('ann')[0]?.blocks);
      for (const name of expected.ann.w1) expect(annDm).toContain(slackText(name));
      expect(dmsTo('bob')).toHaveLength(0);
      expect(mailTo('cy')).toHaveLength(0);
      expect(dmsTo('cy')).toHaveLength(0);
      expect(mailTo('dee')).toHaveLength(0);
      expect(smtp.messages).toHaveLength(2);
    });

    it("sends the connection's own user no digest of the accounts it owns, and names it no rep", async () => {
      // The CRM lists it as an active user with an email: only knowing who the connection is tells it apart.
      const listed = (await connector.listOwners()).find((o) => o.id === integration.id);
      expect(listed).toMatchObject({ active: true, integration: true });
      expect(smtp.messages.filter((m) => m.to.includes(integration.email))).toHaveLength(0);
      expect(slack.messages.filter((m) => m.email === integration.email)).toHaveLength(0);
      expect(smtp.messages.every((m) => !m.text.includes('Sync Made Borough'))).toBe(true);
    });

    it('sends nothing twice when the slot runs again', async () => {
      const before = { mail: smtp.messages.length, dms: slack.messages.length };
      const again = await runPerOwnerDigest(deps(), new Date(S1));
      expect(again.counts).toMatchObject({ written: 0, alreadyWritten: 2, nothingNew: 1, failed: 0 });
      expect({ mail: smtp.messages.length, dms: slack.messages.length }).toEqual(before);
      const state = await database.state.get(ownerStateKey(crm.kind, tenant, owners.bob));
      expect(state).toMatchObject({ period: week(S1), watermark: new Date(S1).toISOString() });
    });

    it("retries a failed Slack post without sending the email again; next week's digest holds only what is new", async () => {
      slack.failNext('chat.postMessage', 503);
      await expect(runPerOwnerDigest(deps(), new Date(S2))).rejects.toBeInstanceOf(DigestIncompleteError);
      expect(mailTo('ann')).toHaveLength(2);
      expect(dmsTo('ann')).toHaveLength(1);

      const retry = await runPerOwnerDigest(deps(), new Date(S2));
      // Ann's digest of week 2 was under way: the retry finishes it (Slack) rather than writing a new one.
      expect(retry.counts).toMatchObject({ recovered: 1, written: 0, failed: 0 });
      expect(mailTo('ann')).toHaveLength(2);
      expect(dmsTo('ann')).toHaveLength(2);
      const week2 = mailTo('ann')[1]?.text ?? '';
      // A later digest covers what is new since the last one, and both its subject and text say so.
      expect(mailTo('ann')[1]?.subject).toContain(`Buyer intel — ${day(S1)} to ${day(S2)}:`);
      expect(week2).toContain(`on the accounts you own, ${day(S1)} to ${day(S2)}, hottest first:`);
      for (const name of expected.ann.w2) expect(week2).toContain(`] ${name} — `);
      for (const name of expected.ann.w1.filter((n) => !expected.ann.w2.includes(n)))
        expect(week2).not.toContain(`] ${name} — `);
      // Bob and Cy: nothing new in week 2, nothing sent.
      expect(mailTo('bob')).toHaveLength(1);
      expect(mailTo('cy')).toHaveLength(0);
    });
  });
}
