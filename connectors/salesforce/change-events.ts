// Size: one CometD subscription's whole life (handshake, replay, re-auth, resubscribe) reads best whole.
// A durable subscriber to Salesforce Change Data Capture for Accounts (/data/AccountChangeEvent over the
// Streaming API, jsforce's Faye client). Delivery is at least once and in order: events are handled one
// at a time, and an event's replay id is written to Redis only after `onEvent` resolved, so a restart
// (or a resubscribe) resumes after the last event that was safely queued. Anything that breaks the chain
// starts a new Faye client from the stored replay id:
// - `onEvent` (or the Redis write) fails: the events after it are dropped unhandled and fetched again
//   after a backoff, so the failed one is retried rather than skipped;
// - the session ends (`401::Authentication invalid` / `403::Handshake denied`): the Faye client never
//   refreshes its token, so we ask `reauthenticate()` for a new one and start over with it;
// - Salesforce refuses the stored replay id (older than the 72-hour retention): -2, every retained event.
// Replays can overlap what was already handled; events at or below the stored replay id are skipped.
// No jsforce or Faye type leaves this file, and no log line carries a token.
import type { Redis } from 'ioredis';
import { Connection } from 'jsforce';
import { StreamingExtension } from 'jsforce/lib/api/streaming.js';
import { z } from 'zod';
import { backoffDelay } from '../../src/shared/backoff.ts';
import { redactor } from './errors.ts';

export const ACCOUNT_CHANGE_CHANNEL = '/data/AccountChangeEvent';

export interface AccountChangeEvent {
  /** CREATE, UPDATE, DELETE, UNDELETE (or a GAP_… / OVERFLOW event). */
  changeType: string;
  recordIds: string[];
  replayId: number;
  /** When the change was committed (ms since epoch). */
  commitTimestamp?: number;
  /** For UPDATE: the fields that changed (address parts as `BillingAddress.City`). */
  changedFields?: string[];
}

export interface AccountChangeSubscriberOptions {
  instanceUrl: string;
  apiVersion: string;
  /** Current access token, and a way to get a fresh one after `401::Authentication invalid`. */
  accessToken: () => Promise<string> | string;
  reauthenticate: () => Promise<string>;
  redis: Redis;
  /** Redis key holding the last processed replay id. */
  replayKey: string;
  /** Where to start when Redis holds no replay id: -1 new events only (default) or -2 all retained. */
  initialReplay?: -1 | -2;
  /** Called per event, in order; resolve only when the work is safely queued. The replay id is stored after it resolves. */
  onEvent: (event: AccountChangeEvent) => Promise<void>;
  log?: (line: string, fields?: Record<string, unknown>) => void;
  /** Ceiling of the first delay before resubscribing after a failure; doubles up to 30 s (the one backoff). Default 1 s. */
  retryDelayMs?: number;
  /** How long the first subscribe may take before the returned promise rejects. Default 60 s. */
  startTimeoutMs?: number;
}

export interface AccountChangeSubscription {
  /** Stops receiving; waits for the event being handled (its replay id is stored if it succeeds). */
  close(): Promise<void>;
}

const eventSchema = z.object({
  payload: z.looseObject({
    ChangeEventHeader: z.looseObject({
      changeType: z.string().min(1),
      recordIds: z.array(z.string()),
      commitTimestamp: z.number().optional(),
      changedFields: z.array(z.string()).optional(),
    }),
  }),
  event: z.looseObject({ replayId: z.number().int() }),
});

/** The parts of Faye's client used here (its typings in jsforce leave out `disconnect`). */
interface FayeSubscription {
  then(onSuccess: () => void, onFailure: (err: unknown) => void): unknown;
}
interface FayeClient {
  subscribe(channel: string, listener: (data: unknown) => void): FayeSubscription;
  disconnect(): FayeSubscription | undefined;
}

const MAX_RETRY_DELAY_MS = 30_000;
const DISCONNECT_WAIT_MS = 2000;
const noop = () => {};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isInvalidReplay = (message: string) => /replayId.*invalid/i.test(message);
const messageOf = (err: unknown): string => {
  if (typeof err === 'object' && err !== null && 'message' in err) return String(err.message);
  return String(err);
};

export function subscribeAccountChanges(
  o: AccountChangeSubscriberOptions,
): Promise<AccountChangeSubscription> {
  return new ChangeSubscriber(o).start();
}

class ChangeSubscriber {
  readonly #o: AccountChangeSubscriberOptions;
  readonly #log: (line: string, fields?: Record<string, unknown>) => void;
  readonly #tokens: string[] = [];
  readonly #redact = redactor(() => this.#tokens);
  /** Bumped on every (re)subscribe; messages and callbacks of an older client are ignored. */
  #generation = 0;
  #client: FayeClient | undefined;
  /** Serializes event handling across generations, so a replayed event waits for the one in flight. */
  #chain: Promise<void> = Promise.resolve();
  /** The replay id stored last (what a resubscribe resumes after). */
  #stored: number | undefined;
  /**
   * With no replay id stored yet, the first event that failed: replay ids are not contiguous, so the
   * resubscribe asks for every retained event (-2) and skips those before this one.
   */
  #failedBeforeAnyStored: number | undefined;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Resolves the promise `start` returned, on the first acknowledged subscribe. */
  #started: (() => void) | undefined;

  constructor(o: AccountChangeSubscriberOptions) {
    this.#o = o;
    this.#log = o.log ?? noop;
  }

  start(): Promise<AccountChangeSubscription> {
    const handle: AccountChangeSubscription = { close: () => this.#close() };
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => {
        void this.#close();
        reject(new Error(`could not subscribe to ${ACCOUNT_CHANGE_CHANNEL} within the start timeout`));
      }, this.#o.startTimeoutMs ?? 60_000);
      this.#started = () => {
        clearTimeout(timeout);
        resolve(handle);
      };
      void this.#subscribe(undefined);
    });
  }

  async #close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#generation++;
    // Wait for the disconnect's answer: a Faye request still unanswered when the caller stops the
    // server would be retried every few seconds for ever, keeping the process alive.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#disconnect(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DISCONNECT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    await this.#chain;
  }

  /** Disconnects the current Faye client; resolves when the server answered. */
  #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    return new Promise((resolve) => {
      const answer = client?.disconnect();
      if (!answer) return resolve();
      // A client whose session ended is unknown to the server by now; its disconnect fails, harmlessly.
      answer.then(resolve, () => resolve());
    });
  }

  /** Starts a new Faye client from the stored replay id (or `replayOverride`). */
  async #subscribe(replayOverride: -2 | undefined): Promise<void> {
    if (this.#closed) return;
    const generation = ++this.#generation;
    void this.#disconnect();
    let replay: number;
    let token: string;
    try {
      const raw = await this.#o.redis.get(this.#o.replayKey);
      const stored = raw !== null && /^-?\d+$/.test(raw) ? Number(raw) : undefined;
      // After a refused replay id, what Redis holds is no floor for skipping replayed events.
      if (stored !== undefined && replayOverride === undefined)
        this.#stored = Math.max(this.#stored ?? stored, stored);
      const fallback = this.#failedBeforeAnyStored !== undefined ? -2 : (this.#o.initialReplay ?? -1);
      replay = replayOverride ?? this.#stored ?? fallback;
      token = await this.#o.accessToken();
    } catch (err) {
      return this.#retry(generation, 'could not read the replay id or access token', err);
    }
    if (generation !== this.#generation) return;
    this.#remember(token);
    const conn = new Connection({
      instanceUrl: this.#o.instanceUrl,
      accessToken: token,
      version: this.#o.apiVersion,
    });
    const client = conn.streaming.createClient([
      new StreamingExtension.Replay(ACCOUNT_CHANGE_CHANNEL, replay),
      new StreamingExtension.AuthFailure((message: unknown) => this.#onAuthFailure(generation, message)),
    ]) as unknown as FayeClient;
    this.#client = client;
    client
      .subscribe(ACCOUNT_CHANGE_CHANNEL, (data) => this.#enqueue(generation, data))
      .then(
        () => {
          // Replaced while its handshake was under way (too early to disconnect then): end it now.
          if (generation !== this.#generation) return void client.disconnect()?.then(noop, noop);
          this.#log('subscribed to Salesforce account change events', { replayFrom: replay });
          this.#started?.();
          this.#started = undefined;
        },
        (err) => this.#onSubscribeFailed(generation, replay, err),
      );
  }

  #onSubscribeFailed(generation: number, replay: number, err: unknown): void {
    if (generation !== this.#generation) return;
    const error = this.#redact(messageOf(err));
    if (isInvalidReplay(error) && replay !== -2) {
      this.#log('Salesforce no longer retains the stored replay id; replaying every retained event', {
        level: 'warn',
        replayFrom: replay,
        error,
      });
      this.#stored = undefined;
      void this.#subscribe(-2);
      return;
    }
    this.#retry(generation, 'subscribing to Salesforce account change events failed', err);
  }

  #onAuthFailure(generation: number, message: unknown): void {
    if (generation !== this.#generation || this.#closed) return;
    const error = isRecord(message) ? String(message.error ?? '') : '';
    this.#log('Salesforce streaming session is no longer valid; re-authenticating', { level: 'warn', error });
    // The Faye client would keep presenting the old token: replace it before anything else happens.
    this.#generation++;
    void this.#disconnect();
    const next = this.#generation;
    this.#o.reauthenticate().then(
      (token) => {
        this.#remember(token);
        if (next === this.#generation) void this.#subscribe(undefined);
      },
      (err) => this.#retry(next, 're-authenticating for Salesforce streaming failed', err),
    );
  }

  #enqueue(generation: number, data: unknown): void {
    this.#chain = this.#chain.then(() => this.#handle(generation, data));
  }

  async #handle(generation: number, data: unknown): Promise<void> {
    if (generation !== this.#generation || this.#closed) return;
    const parsed = eventSchema.safeParse(data);
    if (!parsed.success) {
      this.#log('skipped a Salesforce change event of unknown shape', {
        level: 'warn',
        issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 5),
      });
      return;
    }
    const header = parsed.data.payload.ChangeEventHeader;
    const event: AccountChangeEvent = {
      changeType: header.changeType,
      recordIds: header.recordIds,
      replayId: parsed.data.event.replayId,
      ...(header.commitTimestamp !== undefined ? { commitTimestamp: header.commitTimestamp } : {}),
      ...(header.changedFields !== undefined ? { changedFields: header.changedFields } : {}),
    };
    if (this.#stored !== undefined && event.replayId <= this.#stored) return;
    if (this.#failedBeforeAnyStored !== undefined && event.replayId < this.#failedBeforeAnyStored) return;
    try {
      await this.#o.onEvent(event);
      await this.#o.redis.set(this.#o.replayKey, String(event.replayId));
    } catch (err) {
      if (this.#stored === undefined) this.#failedBeforeAnyStored ??= event.replayId;
      // Later events of this client are dropped (generation moves on) and fetched again with this one.
      this.#retry(generation, 'handling a Salesforce change event failed; it will be delivered again', err, {
        replayId: event.replayId,
        changeType: event.changeType,
        recordIds: event.recordIds,
      });
      return;
    }
    this.#stored = event.replayId;
    this.#failedBeforeAnyStored = undefined;
    this.#failures = 0;
  }

  /** Logs a failure and resubscribes from the stored replay id after a growing delay. */
  #retry(generation: number, line: string, err: unknown, fields: Record<string, unknown> = {}): void {
    if (generation !== this.#generation || this.#closed) return;
    this.#generation++;
    void this.#disconnect();
    this.#failures++;
    const delay = backoffDelay(this.#failures, {
      baseMs: this.#o.retryDelayMs ?? 1000,
      maxMs: MAX_RETRY_DELAY_MS,
    });
    this.#log(line, { level: 'error', ...fields, error: this.#redact(messageOf(err)), retryInMs: delay });
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#subscribe(undefined), delay);
  }

  #remember(token: string): void {
    if (!this.#tokens.includes(token)) this.#tokens.push(token);
    if (this.#tokens.length > 8) this.#tokens.shift();
  }
}
