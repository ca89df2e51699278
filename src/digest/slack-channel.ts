// A rep's digest as a Slack direct message, through the Slack Web API (@slack/web-api): the rep's
// Slack user by the CRM owner's email (users.lookupByEmail, scope users:read.email), the DM channel with
// them (conversations.open, im:write), the message (chat.postMessage, chat:write). The client retries
// nothing itself (the digest job does, with the service's one backoff) and logs nothing (the token
// stays out of logs). Slack answers errors as `{ok:false, error}`: `users_not_found` means this rep has
// no Slack account under that email — permanent for them; a bad token or missing scope is permanent too.
import { ErrorCode, LogLevel, WebClient } from '@slack/web-api';
import { ChannelError, type OwnerChannel } from './owner-message.ts';

export interface SlackChannelOptions {
  /** xoxb-… (secret). */
  botToken: string;
  /** Default https://slack.com/api/ (a stand-in's URL in tests). */
  apiUrl?: string;
}

const PERMANENT = new Set([
  'users_not_found',
  'user_not_found',
  'user_disabled',
  'cannot_dm_bot',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'missing_scope',
  'not_allowed_token_type',
]);

const silent = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

export function slackChannel(options: SlackChannelOptions): OwnerChannel {
  const slack = new WebClient(options.botToken, {
    slackApiUrl: options.apiUrl ?? 'https://slack.com/api/',
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 20_000,
    logger: silent,
  });
  return async (message) => {
    try {
      const found = await slack.users.lookupByEmail({ email: message.to.email });
      const userId = found.user?.id;
      if (!userId) throw new ChannelError('Slack answered no user id', false);
      const opened = await slack.conversations.open({ users: userId });
      const channel = opened.channel?.id;
      if (!channel) throw new ChannelError('Slack opened no DM channel', false);
      await slack.chat.postMessage({
        channel,
        text: message.slack.text,
        blocks: message.slack.blocks as never,
        unfurl_links: false,
      });
    } catch (err) {
      if (err instanceof ChannelError) throw err;
      const e = err as { code?: unknown; data?: { error?: unknown }; retryAfter?: unknown };
      if (e.code === ErrorCode.PlatformError) {
        const reason = String(e.data?.error ?? 'unknown');
        // The one refusal a person fixes per rep: say whom and how.
        const fix =
          reason === 'users_not_found'
            ? `: no Slack user has the email ${message.to.email}; add them to the workspace under that email, or correct their email in the CRM`
            : '';
        throw new ChannelError(`Slack refused (${reason})${fix}`, PERMANENT.has(reason));
      }
      if (e.code === ErrorCode.RateLimitedError)
        throw new ChannelError(`Slack rate limited (retry after ${String(e.retryAfter)} s)`, false);
      throw new ChannelError(`Slack unreachable (${String(e.code ?? 'error')})`, false);
    }
  };
}
