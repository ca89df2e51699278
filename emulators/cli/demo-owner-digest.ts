// The demo's per-owner digest: a local SMTP sink and the Slack stand-in receive what reps would; one
// rep per CRM owns the accounts there (each emulator's setOwner: a HubSpot owner on the company, a
// Salesforce User as the Account's OwnerId), then one per-owner digest runs and the demo prints who
// received which signals.
import { crmOf } from '../../connectors/registry.ts';
import { renderTable, wrapParagraph } from '../../src/cli/table.ts';
import type { DigestSettings } from '../../src/digest/settings.ts';
import type { Service } from '../../src/service/types.ts';
import type { EmulatedPerson } from '../descriptor.ts';
import { type RunningSlackStandIn, startSlackStandIn } from '../slack/server.ts';
import { type RunningSmtpSink, startSmtpSink } from '../smtp/sink.ts';
import type { DemoCrm } from './demo-follow-ups.ts';
import { repFor } from './demo-follow-ups.ts';

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

/** Each CRM's rep for the digest, in registry order; the first is in Slack, the others are not. */
const DIGEST_REPS: EmulatedPerson[] = [
  { email: 'hana.reyes@demo.example', firstName: 'Hana', lastName: 'Reyes' },
  { email: 'sam.ortiz@demo.example', firstName: 'Sam', lastName: 'Ortiz' },
  { email: 'noor.haddad@demo.example', firstName: 'Noor', lastName: 'Haddad' },
];

/** Gives each CRM's accounts to a rep, runs one per-owner digest and prints what each rep received. */
export async function showOwnerDigest(
  out: (line?: string) => void,
  parts: {
    service: Pick<Service, 'digest'>;
    crms: readonly DemoCrm[];
    standIns: OwnerDigestStandIns;
  },
): Promise<void> {
  const { crms, standIns } = parts;
  const reps = crms.map((crm, i) => {
    const rep = repFor(DIGEST_REPS, i);
    const id = crm.emulator.addOwner(crm.running, rep);
    for (const account of crm.ids) crm.emulator.setOwner(crm.running, account, id);
    return { rep, crm };
  });
  // The first rep is in Slack; the others are not (their digest goes by email only).
  const [inSlack] = reps;
  if (inSlack) standIns.slack.addUser(inSlack.rep.email, inSlack.rep.firstName.toLowerCase());

  out();
  out(
    wrapParagraph(
      `per-owner digest: ${reps.map(({ rep, crm }) => `${rep.firstName} owns the ${crmOf(crm.emulator.kind).label} accounts`).join(', ')}; running it now...`,
    ),
  );
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
