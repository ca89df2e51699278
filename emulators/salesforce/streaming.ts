// The Streaming API as Salesforce serves it to CometD clients (jsforce's Faye client): Bayeux 1.0 over
// long-polling at POST /cometd/<version>, a JSON array of messages in, a JSON array out (HTTP 200 even
// for failures — the verdict is in each reply's `successful`/`error`/`advice`). Every request is
// authenticated with the session in `Authorization: OAuth <id>`; a session that ended makes handshake
// answer `403::Handshake denied` and connect `401::Authentication invalid`, both with advice
// reconnect 'none' (what jsforce's AuthFailure extension watches for). Subscribes take
// `ext.replay[channel]`: -1 new events only, -2 every retained event, or a retained replay id to resume
// after. A connect is held until the client has events or the advice timeout passes, except the first
// after a handshake, which answers at once (as CometD does) so the client learns the advice.
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { AuthRegistry } from './auth.ts';
import { ACCOUNT_CHANGE_CHANNEL, ChangeEventLog, type ChangeEventSettings } from './change-events.ts';
import type { SalesforceStore } from './store.ts';

export interface StreamingSettings extends ChangeEventSettings {
  /** How long a connect is held (advice.timeout). Default 110,000 ms, as Salesforce. */
  connectTimeoutMs?: number;
  /** A client that has not connected for this long is forgotten. Default 40 s. */
  maxIntervalMs?: number;
}

type Message = Record<string, unknown>;

interface Subscription {
  /** Events with a larger replay id are still to be delivered. */
  after: number;
}

interface BayeuxClient {
  id: string;
  subscriptions: Map<string, Subscription>;
  connected: boolean;
  /** Forgotten by the server (dropClients) rather than disconnected by the client. */
  dropped?: boolean;
  lastSeen: number;
  /** Ends the connect being held, if one is. */
  release?: () => void;
}

const CHANNELS = new Set([ACCOUNT_CHANGE_CHANNEL]);
const invalidReplay = (id: unknown) =>
  `400::The replayId {${String(id)}} you provided was invalid. Please provide a valid ID, -2 to replay all events, or -1 to replay only new events.`;

const unknownClient = (reply: Message): Message => ({
  ...reply,
  successful: false,
  error: '403::Unknown client',
  advice: { reconnect: 'handshake', interval: 0 },
});

/** How long to hold a connect: the server's timeout, or less when the client asks (Faye sends
 * `advice.timeout: 0` on a connect batched with other messages). */
function holdMs(m: Message, serverTimeoutMs: number): number {
  const advice = typeof m.advice === 'object' && m.advice !== null ? (m.advice as Message) : {};
  return typeof advice.timeout === 'number' && advice.timeout >= 0
    ? Math.min(advice.timeout, serverTimeoutMs)
    : serverTimeoutMs;
}

export class StreamingServer {
  readonly log: ChangeEventLog;
  connectTimeoutMs: number;
  maxIntervalMs: number;
  readonly #auth: AuthRegistry;
  readonly #clients = new Map<string, BayeuxClient>();
  #closed = false;

  constructor(store: SalesforceStore, auth: AuthRegistry, settings: StreamingSettings = {}) {
    this.#auth = auth;
    this.log = new ChangeEventLog(store, settings);
    this.connectTimeoutMs = settings.connectTimeoutMs ?? 110_000;
    this.maxIntervalMs = settings.maxIntervalMs ?? 40_000;
    this.log.onEvent(() => {
      for (const c of this.#clients.values()) if (this.#pending(c).length) c.release?.();
    });
  }

  /** Retained change events, oldest first. */
  get events() {
    return this.log.retained();
  }

  /** Clients handshaken and not yet disconnected or forgotten. */
  get clientCount(): number {
    this.#forgetIdle();
    return this.#clients.size;
  }

  /**
   * Forgets every client, as an app server restart does: their next (or held) connect answers
   * `403::Unknown client` with advice to handshake again.
   */
  dropClients(): void {
    for (const c of this.#clients.values()) {
      c.dropped = true;
      c.release?.();
    }
    this.#clients.clear();
  }

  /** Answers held connects and refuses new work, so the HTTP server can close at once. */
  close(): void {
    this.#closed = true;
    for (const c of this.#clients.values()) c.release?.();
    this.#clients.clear();
    this.log.close();
  }

  router(): express.Router {
    const router = express.Router();
    router.post('/cometd/:version', express.json({ limit: '1mb' }), async (req, res) => {
      const body: unknown = req.body;
      const messages = (Array.isArray(body) ? body : [body]).filter(
        (m): m is Message => typeof m === 'object' && m !== null,
      );
      // A connect is answered last, so a subscribe or disconnect batched with it is not held behind it.
      const ordered = [
        ...messages.filter((m) => m.channel !== '/meta/connect'),
        ...messages.filter((m) => m.channel === '/meta/connect'),
      ];
      const replies: Message[] = [];
      for (const m of ordered) replies.push(...(await this.#handle(m, req.get('authorization'))));
      res.json(replies);
    });
    return router;
  }

  #authorized(header: string | undefined): boolean {
    try {
      this.#auth.authenticate(header);
      return true;
    } catch {
      return false;
    }
  }

  async #handle(m: Message, authorization: string | undefined): Promise<Message[]> {
    this.#forgetIdle();
    const channel = typeof m.channel === 'string' ? m.channel : '';
    const base: Message = { channel, ...(m.id !== undefined ? { id: m.id } : {}) };
    if (channel === '/meta/handshake') return [this.#handshake(base, authorization)];
    const client = typeof m.clientId === 'string' ? this.#clients.get(m.clientId) : undefined;
    if (!client || this.#closed) return [unknownClient(base)];
    client.lastSeen = Date.now();
    const reply: Message = { ...base, clientId: client.id };
    if (!this.#authorized(authorization)) return [this.#authInvalid(reply, client)];
    switch (channel) {
      case '/meta/connect':
        return this.#connect(reply, client, authorization, holdMs(m, this.connectTimeoutMs));
      case '/meta/subscribe':
        return [this.#subscribe(reply, client, m)];
      case '/meta/unsubscribe': {
        const subscription = String(m.subscription ?? '');
        client.subscriptions.delete(subscription);
        return [{ ...reply, subscription, successful: true }];
      }
      case '/meta/disconnect':
        this.#clients.delete(client.id);
        client.release?.();
        return [{ ...reply, successful: true }];
      default:
        return [{ ...reply, successful: false, error: `403:${channel}:Publish is not supported` }];
    }
  }

  #handshake(base: Message, authorization: string | undefined): Message {
    if (this.#closed || !this.#authorized(authorization))
      return {
        ...base,
        successful: false,
        error: '403::Handshake denied',
        ext: { sfdc: { failureReason: '401::Authentication invalid' }, replay: true },
        advice: { reconnect: 'none' },
      };
    const id = randomBytes(18).toString('base64url');
    this.#clients.set(id, { id, subscriptions: new Map(), connected: false, lastSeen: Date.now() });
    return {
      ...base,
      clientId: id,
      version: '1.0',
      minimumVersion: '1.0',
      supportedConnectionTypes: ['long-polling'],
      successful: true,
      ext: { replay: true, 'payload.format': true },
      advice: { timeout: this.connectTimeoutMs, interval: 0, reconnect: 'retry' },
    };
  }

  #authInvalid(reply: Message, client: BayeuxClient): Message {
    this.#clients.delete(client.id);
    return {
      ...reply,
      successful: false,
      error: '401::Authentication invalid',
      advice: { reconnect: 'none' },
    };
  }

  #subscribe(reply: Message, client: BayeuxClient, m: Message): Message {
    const channel = String(m.subscription ?? '');
    const out = { ...reply, subscription: channel };
    if (!CHANNELS.has(channel))
      return {
        ...out,
        successful: false,
        error: `400::The channel you requested to subscribe to does not exist {${channel}}`,
      };
    const ext = typeof m.ext === 'object' && m.ext !== null ? (m.ext as Message) : {};
    const replays = typeof ext.replay === 'object' && ext.replay !== null ? (ext.replay as Message) : {};
    const from = replays[channel] ?? -1;
    let after: number;
    if (from === -1) after = this.log.lastReplayId;
    else if (from === -2) after = 0;
    else if (typeof from === 'number' && Number.isInteger(from) && this.log.isRetained(from)) after = from;
    else return { ...out, successful: false, error: invalidReplay(from) };
    client.subscriptions.set(channel, { after });
    if (this.#pending(client).length) client.release?.();
    return { ...out, successful: true };
  }

  async #connect(
    reply: Message,
    client: BayeuxClient,
    authorization: string | undefined,
    hold: number,
  ): Promise<Message[]> {
    const first = !client.connected;
    client.connected = true;
    client.release?.();
    if (!first && hold > 0 && this.#pending(client).length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, hold);
        function done() {
          clearTimeout(timer);
          if (client.release === done) client.release = undefined;
          resolve();
        }
        client.release = done;
      });
      client.lastSeen = Date.now();
      // The session may have ended while the connect was held.
      if (!this.#closed && !this.#authorized(authorization)) return [this.#authInvalid(reply, client)];
      if (client.dropped) return [unknownClient(reply)];
      if (!this.#clients.has(client.id)) return [{ ...reply, successful: true }];
    }
    const events = this.#take(client);
    const advice = first
      ? { advice: { timeout: this.connectTimeoutMs, interval: 0, reconnect: 'retry' } }
      : {};
    return [...events, { ...reply, successful: true, ...advice }];
  }

  #pending(client: BayeuxClient) {
    const retained = this.log.retained();
    return retained.filter((e) => (client.subscriptions.get(e.channel)?.after ?? Infinity) < e.replayId);
  }

  /** The client's undelivered events, as channel messages, marked delivered. */
  #take(client: BayeuxClient): Message[] {
    const events = this.#pending(client);
    for (const e of events) {
      const s = client.subscriptions.get(e.channel);
      if (s) s.after = Math.max(s.after, e.replayId);
    }
    return events.map((e) => ({ channel: e.channel, data: e.data }));
  }

  #forgetIdle(): void {
    const cutoff = Date.now() - this.maxIntervalMs - this.connectTimeoutMs;
    for (const c of this.#clients.values()) if (!c.release && c.lastSeen < cutoff) this.#clients.delete(c.id);
  }
}
