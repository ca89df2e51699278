// A local SMTP sink for tests and the demo (on the kept `smtp-server` package): accepts every message
// on a local port without TLS, records each (envelope, headers, text) and delivers it nowhere. With
// `auth` set it answers AUTH as a real relay does — 535 to wrong credentials — and refuses mail from a
// client that did not authenticate (530). A recipient listed in `reject` gets the 550 a server answers
// for an unknown mailbox, so a test can see a refused address.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SunkMessage {
  from: string;
  to: string[];
  subject: string;
  messageId: string;
  /** The body as sent (text/plain). */
  text: string;
  raw: string;
}

export interface SmtpSinkOptions {
  port?: number;
  host?: string;
  auth?: { user: string; pass: string };
  /** Recipients answered 550 (mailbox unavailable). */
  reject?: string[];
}

export interface RunningSmtpSink {
  /** smtp://[user:pass@]host:port — what DIGEST_SMTP_URL takes. */
  url: string;
  messages: SunkMessage[];
  close(): Promise<void>;
}

/** Unfolded header lines, then the body (RFC 5322: a blank line separates them). */
function parse(raw: string): Pick<SunkMessage, 'subject' | 'messageId' | 'text'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = (split < 0 ? raw : raw.slice(0, split)).replace(/\r\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  let text = split < 0 ? '' : raw.slice(split + 4);
  if (/quoted-printable/i.test(header('Content-Transfer-Encoding')))
    text = Buffer.from(
      text
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  let subject = header('Subject');
  // RFC 2047 encoded words (nodemailer encodes a non-ASCII subject as =?UTF-8?Q?…?= or =?UTF-8?B?…?=).
  subject = subject.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_, enc: string, data: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data
            .replace(/_/g, ' ')
            .replace(/=([0-9A-F]{2})/gi, (__, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
  return { subject, messageId: header('Message-ID'), text: text.replace(/\r\n/g, '\n').trimEnd() };
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<RunningSmtpSink> {
  const messages: SunkMessage[] = [];
  const rejected = new Set((options.reject ?? []).map((r) => r.toLowerCase()));
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass)
        return callback(null, { user: auth.username });
      const err = Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 });
      return callback(err);
    },
    onRcptTo(address, _session, callback) {
      if (rejected.has(address.address.toLowerCase())) {
        const err = Object.assign(new Error(`<${address.address}>: mailbox unavailable`), {
          responseCode: 550,
        });
        return callback(err);
      }
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw, ...parse(raw) });
        callback();
      });
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : '';
  return {
    url: `smtp://${credentials}${host}:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
