// The demo's per-owner digest: a local SMTP sink and the Slack stand-in receive what reps would; one
// rep per CRM owns the matched accounts there (HubSpot owner → company `hubspot_owner_id`; Salesforce
// User → Account OwnerId), then one per-owner digest runs and the demo prints who received which signals.

import { renderTable } from '../../src/cli/table.ts';
import type { DigestSettings } from '../../src/digest/settings.ts';
import type { Service } from '../../src/service/types.ts';
import type { RunningHubSpotSandbox } from '../hubspot/server.ts';
import type { RunningSalesforceSandbox } from '../salesforce/server.ts';
import { type RunningSlackStandIn, startSlackStandIn } from '../slack/server.ts';
import { type RunningSmtpSink, startSmtpSink } from '../smtp/sink.ts';

export interface OwnerDigestStandIns {
  smtp: RunningSmtpSink;
  slack: RunningSlackStandIn;
  /** The service's digest settings: per owner, by email and Slack. */
  digest: DigestSettings;
  close(): Promise<void>;
}

export async function startOwnerDigestStandIns(): Promise<OwnerDigestStandIns> {
  const [smtp, slack] = await Promise.all([startSmtpSink(), startSlackStandIn()]);
  return {
    smtp,
    slack,
    digest: {
      perOwner: {
        pattern: '0 8 * * 1',
        tz: 'UTC',
        lookbackDays: 30,
        maxSignals: 3,
        maxPages: 2,
        concurrency: 4,
        channels: ['email', 'slack'],
        tenantChannels: {},
        email: { smtpUrl: smtp.url, from: 'buyer-intel@demo.example' },
        slack: { botToken: slack.token, apiUrl: slack.apiUrl },
      },
    },
    close: async () => {
      await Promise.all([smtp.close(), slack.close()]);
    },
  };
}

/** Gives each CRM's accounts to a rep, runs one per-owner digest and prints what each rep received. */
export async function showOwnerDigest(
  out: (line?: string) => void,
  parts: {
    service: Pick<Service, 'digest'>;
    hs: RunningHubSpotSandbox;
    sf: RunningSalesforceSandbox;
    companies: readonly string[];
    accounts: readonly string[];
    standIns: OwnerDigestStandIns;
  },
): Promise<void> {
  const { hs, sf, standIns } = parts;
  const hubspotRep = hs.store.owners.add({
    email: 'hana.reyes@demo.example',
    firstName: 'Hana',
    lastName: 'Reyes',
  });
  for (const id of parts.companies)
    hs.store.updateCompany(id, { hubspot_owner_id: hubspotRep.id }, { source: 'CRM_UI' });
  const sfRep = sf.store.create('User', {
    Username: 'sam.ortiz@demo.example',
    Email: 'sam.ortiz@demo.example',
    FirstName: 'Sam',
    LastName: 'Ortiz',
  });
  for (const id of parts.accounts) sf.store.update('Account', id, { OwnerId: sfRep.id });
  // Hana is in Slack; Sam is not (his digest goes by email only).
  standIns.slack.addUser('hana.reyes@demo.example', 'hana');

  out();
  out('per-owner digest: Hana owns the HubSpot companies, Sam the Salesforce Accounts; running it now...');
  const result = await parts.service.digest('per-owner');
  const rows = standIns.smtp.messages.map((m) => {
    const dm = standIns.slack.messages.some((s) => m.to.includes(s.email));
    const accounts = m.text.split('\n').filter((l) => /^\S.* \(\d+\)$/.test(l));
    return [m.to.join(', '), dm ? 'email + Slack DM' : 'email', m.subject, accounts.join('; ')];
  });
  out(renderTable(rows, { head: ['rep', 'received by', 'subject', 'accounts (new signals)'] }));
  const first = standIns.smtp.messages[0];
  if (first) {
    out(`e.g. the email to ${first.to.join(', ')}:`);
    // Cut to the demo's 100 columns.
    for (const line of first.text.split('\n').slice(0, 12)) out(`  | ${line}`.slice(0, 100));
  }
  out(`digest run: ${JSON.stringify(result.counts)}`);
}
