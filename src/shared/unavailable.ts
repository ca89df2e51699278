// Whether a failure means a dependency of ours (Redis, the database) is down, read from the facts the
// drivers put on their errors: PostgreSQL's SQLSTATE, ioredis' refusal to send while disconnected, a
// network cause. A route that meets one answers 503 with Retry-After (src/api/unavailable.ts), as the
// webhooks do, instead of a 500 that tells a caller nothing and an operator to look for a bug.
import { networkCause } from './network-cause.ts';

export interface Unavailable {
  /** What is down, as a caller reads it: "Redis", "the database". */
  dependency: 'Redis' | 'the database';
  /** The machine-readable error of the answer. */
  error: 'queue_unavailable' | 'store_unavailable';
  /** Why, in words (no address, no credentials). */
  reason: string;
}

/** SQLSTATE classes that say the server is gone or not taking connections, not that a query was wrong. */
const PG_DOWN = /^(08|57P0[1-4]|53300|53400)/;
/** What ioredis says when it will not send a command (disconnected, offline queue off, retries spent). */
const REDIS_DOWN =
  /enableOfflineQueue|Stream isn't writeable|Connection is closed|max retries per request|^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN)\b|Failed to refresh slots cache/i;
/** What node-postgres and its pool say when the connection went or never came. */
const PG_GONE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|could not reach the database/i;

/** The errors behind `err`: itself and its causes, outermost first. */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  let e = err;
  while (e !== undefined && e !== null && out.length < 8 && !out.includes(e)) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

const field = (e: unknown, name: string): unknown =>
  typeof e === 'object' && e !== null ? (e as Record<string, unknown>)[name] : undefined;

/** The dependency `err` says is down, or undefined when it is something else (a bad request, a bug). */
export function unavailableDependency(err: unknown): Unavailable | undefined {
  for (const e of chain(err)) {
    const message = e instanceof Error ? e.message : '';
    const code = field(e, 'code');
    // node-postgres' DatabaseError carries the server's severity beside the SQLSTATE.
    if (typeof code === 'string' && field(e, 'severity') !== undefined && PG_DOWN.test(code))
      return store(`the server refused the connection (SQLSTATE ${code})`);
    if (PG_GONE.test(message)) return store(networkCause(e) ?? 'the connection was lost');
    if (REDIS_DOWN.test(message))
      return { dependency: 'Redis', error: 'queue_unavailable', reason: 'not connected' };
  }
  // A bare network failure that reached a route: our CRM and provider clients wrap theirs in the error
  // root with the upstream named, and ioredis queues or refuses, so what is left is the database's pool.
  const cause = networkCause(err);
  return cause === undefined ? undefined : store(cause);
}

const store = (reason: string): Unavailable => ({
  dependency: 'the database',
  error: 'store_unavailable',
  reason,
});
