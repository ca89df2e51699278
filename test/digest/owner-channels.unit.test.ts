// The rep digest's delivery channels against the local stand-ins: what a failure means (a refused
// address or an unknown Slack user is permanent: no retry; a server that is down is worth a retry) and
// that no failure message carries the SMTP password or the Slack token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSlackStandIn, startSlackStandIn } from '../../emulators/slack/server.ts';
import { type RunningSmtpSink, startSmtpSink } from '../../emulators/smtp/sink.ts';
import { emailChannel } from '../../src/digest/email-channel.ts';
import { ChannelError, type OwnerMessage } from '../../src/digest/owner-message.ts';
import { slackChannel } from '../../src/digest/slack-channel.ts';

const message = (email: string): OwnerMessage => ({
  to: { email, name: 'Ann Archer' },
  subject: 'Buyer intel — week of 2026-11-16: 2 new signals on 1 of your accounts',
  text: 'Hi Ann Archer,\n\nLincoln County (2)\n  1. [RFP] Fire Station Alerting — 2026-12-01',
  slack: { text: 'Buyer intel', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hello' } }] },
  messageId: '<digest.abc@buyer-intel-sync>',
});

const failure = async (send: Promise<void>) => {
  try {
    await send;
  } catch (err) {
    return err as ChannelError;
  }
  throw new Error('expected the send to fail');
};

let smtp: RunningSmtpSink;
let slack: RunningSlackStandIn;

beforeAll(async () => {
  [smtp, slack] = await Promise.all([
    startSmtpSink({ auth: { user: 'digest', pass: 'pw-s3cr3t' }, reject: ['nobody@rep.example'] }),
    startSlackStandIn(),
  ]);
  slack.addUser('ann@rep.example', 'ann');
});
afterAll(async () => {
  await Promise.all([smtp?.close(), slack?.close()]);
});

describe('email channel', () => {
  it('sends the digest as plain text with its stable Message-ID', async () => {
    await emailChannel({ smtpUrl: smtp.url, from: 'digest@example.com' })(message('ann@rep.example'));
    const sent = smtp.messages.at(-1);
    expect(sent).toMatchObject({ from: 'digest@example.com', to: ['ann@rep.example'] });
    expect(sent?.subject).toBe(message('').subject);
    expect(sent?.messageId).toBe('<digest.abc@buyer-intel-sync>');
    expect(sent?.text).toContain('1. [RFP] Fire Station Alerting — 2026-12-01');
  });

  it('calls a refused address permanent, a wrong password or a dead server worth a retry, naming no secret', async () => {
    const refused = await failure(
      emailChannel({ smtpUrl: smtp.url, from: 'digest@example.com' })(message('nobody@rep.example')),
    );
    expect(refused).toMatchObject({ permanent: true, message: 'email not sent (EENVELOPE 550)' });

    const badAuth = await failure(
      emailChannel({ smtpUrl: smtp.url.replace('pw-s3cr3t', 'wrong-s3cr3t'), from: 'digest@example.com' })(
        message('ann@rep.example'),
      ),
    );
    expect(badAuth.permanent).toBe(false);
    expect(badAuth.message).toBe('email not sent (EAUTH 535)');

    const down = await failure(
      emailChannel({ smtpUrl: 'smtp://digest:pw-s3cr3t@127.0.0.1:9', from: 'digest@example.com' })(
        message('ann@rep.example'),
      ),
    );
    expect(down.permanent).toBe(false);
    for (const e of [refused, badAuth, down]) expect(e.message).not.toContain('s3cr3t');
  });
});

describe('Slack channel', () => {
  it('finds the rep by email and posts to their DM channel', async () => {
    await slackChannel({ botToken: slack.token, apiUrl: slack.apiUrl })(message('ann@rep.example'));
    expect(slack.messages.at(-1)).toMatchObject({ email: 'ann@rep.example', text: 'Buyer intel' });
    expect(slack.messages.at(-1)?.channel).toMatch(/^D/);
  });

  it("calls an unknown user or a bad token permanent, Slack's outage worth a retry", async () => {
    const unknown = await failure(
      slackChannel({ botToken: slack.token, apiUrl: slack.apiUrl })(message('bob@rep.example')),
    );
    expect(unknown).toMatchObject({
      permanent: true,
      message: expect.stringMatching(
        /^Slack refused \(users_not_found\): no Slack user has the email \S+; add them to the workspace/,
      ),
    });
    const badToken = await failure(
      slackChannel({ botToken: 'xoxb-wrong-SECRET', apiUrl: slack.apiUrl })(message('ann@rep.example')),
    );
    expect(badToken).toMatchObject({ permanent: true, message: 'Slack refused (invalid_auth)' });
    expect(badToken.message).not.toContain('SECRET');
    slack.failNext('users.lookupByEmail', 503);
    const outage = await failure(
      slackChannel({ botToken: slack.token, apiUrl: slack.apiUrl })(message('ann@rep.example')),
    );
    expect(outage).toBeInstanceOf(ChannelError);
    expect(outage.permanent).toBe(false);
  });
});
