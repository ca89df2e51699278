// pino JSON logs: one line per event, level from config, and every known secret path redacted. Our own
// messages never carry a token (clients redact their errors), and redaction covers what a library or a
// request header might add.

import { type Logger, pino } from 'pino';
import { CRMS } from '../../connectors/registry.ts';
import type { LogPort } from '../../src/shared/log.ts';

export type { Logger };

export const REDACT_PATHS = [
  'token',
  'accessToken',
  'refreshToken',
  'clientSecret',
  'apiKey',
  'password',
  'authorization',
  'signature',
  'slackWebhookUrl',
  'smtpUrl',
  'botToken',
  'secrets',
  '*.slackWebhookUrl',
  '*.smtpUrl',
  '*.botToken',
  '*.secrets',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.clientSecret',
  '*.apiKey',
  '*.password',
  '*.authorization',
  '*.signature',
  'headers.authorization',
  'headers.cookie',
  'headers["webhook-signature"]',
  'req.headers.authorization',
  'req.headers["webhook-signature"]',
  ...CRMS.flatMap((c) => c.secretHeaders ?? []).flatMap((h) => [`headers["${h}"]`, `req.headers["${h}"]`]),
];

export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'buyer-intel-sync' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? process.stderr,
  );
}

/** The worker's small log interface on a pino logger. */
export function workerLog(logger: Logger): LogPort {
  return {
    info: (msg, fields) => logger.info(fields ?? {}, msg),
    warn: (msg, fields) => logger.warn(fields ?? {}, msg),
  };
}
