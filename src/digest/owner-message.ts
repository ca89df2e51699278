// What a per-owner digest hands a delivery channel, and the channels' contract. A channel throws
// ChannelError: `permanent` when sending again cannot help (no such Slack user, the address refused), so
// the digest records that rep as unreachable this period instead of retrying.
import type { SlackMessage } from './render.ts';

export const OWNER_CHANNEL_KINDS = ['email', 'slack'] as const;
export type OwnerChannelKind = (typeof OWNER_CHANNEL_KINDS)[number];

export interface OwnerMessage {
  to: { email: string; name: string | null };
  subject: string;
  /** Plain text (the email's body). */
  text: string;
  slack: SlackMessage;
  /** Stable per owner and period: a mail client that sees the message twice shows it once. */
  messageId: string;
}

export type OwnerChannel = (message: OwnerMessage) => Promise<void>;
export type OwnerChannels = Partial<Record<OwnerChannelKind, OwnerChannel>>;

export class ChannelError extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = 'ChannelError';
    this.permanent = permanent;
  }
}
