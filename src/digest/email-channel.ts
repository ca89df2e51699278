// A rep's digest by email, over SMTP through nodemailer (one transport per process, a connection per
// message: digests are few and far between). The SMTP
// URL may carry a password: it never reaches a log or an error message — a failure is described by
// nodemailer's error code and the server's reply code only. A 5xx to the recipient (EENVELOPE: address
// refused) is permanent for that rep; anything else (connection, timeout, 4xx) is worth a retry.
import nodemailer from 'nodemailer';
import { ChannelError, type OwnerChannel } from './owner-message.ts';

export interface EmailChannelOptions {
  /** smtp://user:pass@host:port or smtps://… (secret). */
  smtpUrl: string;
  from: string;
}

const TIMEOUT_MS = 20_000;

export function emailChannel(options: EmailChannelOptions): OwnerChannel {
  const transport = nodemailer.createTransport(options.smtpUrl, {
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  return async (message) => {
    try {
      await transport.sendMail({
        from: options.from,
        to: message.to.name ? { name: message.to.name, address: message.to.email } : message.to.email,
        subject: message.subject,
        text: message.text,
        messageId: message.messageId,
      });
    } catch (err) {
      const e = err as { code?: unknown; responseCode?: unknown };
      const code = typeof e.code === 'string' ? e.code : 'EUNKNOWN';
      const reply = typeof e.responseCode === 'number' ? e.responseCode : undefined;
      const refused = code === 'EENVELOPE' && reply !== undefined && reply >= 500;
      throw new ChannelError(`email not sent (${code}${reply ? ` ${reply}` : ''})`, refused);
    }
  };
}
