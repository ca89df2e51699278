// The one answer of the API's and the admin pages' routes while a dependency is down: 503 with the
// reason and Retry-After, as the webhooks answer "retry later" (src/webhooks/receiver.ts). Both routers'
// error handlers and the app's last one call it, so no route's outage comes out as a 500.
import type { Response } from 'express';
import { unavailableDependency } from '../shared/unavailable.ts';

/** How long a caller should wait before trying again: Redis and PostgreSQL restarts take seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** A 503 with Retry-After; the message says what is down and that trying again will do. */
export function sendUnavailable(res: Response, error: string, message: string): void {
  res.status(503).set('Retry-After', String(RETRY_AFTER_SECONDS)).json({ error, message });
}

/** Answers 503 when `err` says Redis or the database is down; false (nothing sent) otherwise. */
export function answerUnavailable(res: Response, err: unknown): boolean {
  const down = unavailableDependency(err);
  if (!down || res.headersSent) return false;
  sendUnavailable(res, down.error, `${down.dependency} is unavailable (${down.reason}); retry later`);
  return true;
}
