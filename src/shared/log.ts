// The one logging port: what any part of the service (a worker, a webhook handler, a digest run, a
// connector) logs through. The service hands in its pino logger (src/observe/logger.ts), a test its own.
export interface LogPort {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}
