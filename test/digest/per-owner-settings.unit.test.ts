// The per-owner digest's settings from the environment: every problem listed at once, and no secret
// (the SMTP URL's password, the Slack token) in any message.
import { describe, expect, it } from 'vitest';
import { digestSettingsFromEnv } from '../../src/digest/settings.ts';

const SMTP = 'smtp://digest:s3cr3t-pass@mail.example.com:587';
const TOKEN = 'xoxb-1234-5678-abcdefSECRET';

describe('per-owner digest settings', () => {
  it('reads channels, tenants, SMTP and Slack from the environment', () => {
    const settings = digestSettingsFromEnv({
      DIGEST_OWNER_CRON: '0 8 * * 1',
      DIGEST_OWNER_CHANNELS: 'email, slack',
      DIGEST_OWNER_TENANT_CHANNELS: 'hubspot:123456=slack; salesforce:00D5g000004aBcD=email',
      DIGEST_SMTP_URL: SMTP,
      DIGEST_EMAIL_FROM: 'digest@example.com',
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_API_URL: 'http://127.0.0.1:9999/api/',
    });
    expect(settings.perOwner).toMatchObject({
      pattern: '0 8 * * 1',
      channels: ['email', 'slack'],
      tenantChannels: { 'hubspot:123456': ['slack'], 'salesforce:00D5g000004aBcD': ['email'] },
      email: { smtpUrl: SMTP, from: 'digest@example.com' },
      slack: { botToken: TOKEN, apiUrl: 'http://127.0.0.1:9999/api/' },
    });
    expect(digestSettingsFromEnv({}).perOwner).toBeUndefined();
  });

  it('lists every problem at once, naming the setting and never echoing a secret', () => {
    let message = '';
    try {
      digestSettingsFromEnv({
        DIGEST_OWNER_CRON: 'every monday',
        DIGEST_OWNER_CHANNELS: 'email,pager',
        DIGEST_OWNER_TENANT_CHANNELS: 'hubspot:1=slack',
        DIGEST_SMTP_URL: 'http://digest:s3cr3t-pass@mail.example.com',
        SLACK_BOT_TOKEN: 'xoxp-user-token-SECRET',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('perOwner.pattern');
    expect(message).toContain('perOwner.channels.1');
    expect(message).toContain('perOwner.email.smtpUrl');
    expect(message).toContain('perOwner.email.from');
    expect(message).toContain('perOwner.slack.botToken');
    expect(message).not.toContain('s3cr3t');
    expect(message).not.toContain('SECRET');
  });

  it('refuses a channel without what it needs', () => {
    expect(() =>
      digestSettingsFromEnv({ DIGEST_OWNER_CRON: '0 8 * * 1', DIGEST_OWNER_CHANNELS: 'slack' }),
    ).toThrow(/perOwner\.slack: Slack delivery needs a bot token/);
  });
});
