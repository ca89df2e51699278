// The per-owner digest's channels, built once from its settings (the composition root calls this).
import { emailChannel } from './email-channel.ts';
import type { OwnerChannels } from './owner-message.ts';
import type { PerOwnerDigestSettings } from './settings.ts';
import { slackChannel } from './slack-channel.ts';

export function ownerChannelsFrom(settings: PerOwnerDigestSettings | undefined): OwnerChannels | undefined {
  if (!settings) return undefined;
  return {
    ...(settings.email ? { email: emailChannel(settings.email) } : {}),
    ...(settings.slack ? { slack: slackChannel(settings.slack) } : {}),
  };
}
