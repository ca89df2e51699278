// The durable Account change-event subscriber against the Salesforce sandbox's Streaming API (over real
// HTTP, the unmodified jsforce Faye client) and a real Redis: events reach onEvent in order, a new
// subscriber resumes after the replay id stored in Redis, an ended session is re-authenticated through
// the OAuth refresh grant, a failing onEvent gets its event again, a refused replay id falls back to -2,
// and an event of unknown shape is skipped.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { OAuth2 } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountChangeEvent,
  type AccountChangeSubscriberOptions,
  type AccountChangeSubscription,
  subscribeAccountChanges,
} from '../../connectors/salesforce/change-events.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { eventually } from '../helpers/poll.ts';

const PREFIX = `test:sf-cdc:${randomUUID()}:`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function start(): Promise<RunningSalesforceSandbox> {
  const sf = await startSalesforceSandbox({ streaming: { connectTimeoutMs: 1000 } });
  closers.push(() => sf.close());
  return sf;
}

interface Subscriber extends AccountChangeSubscription {
  handled: AccountChangeEvent[];
  logs: { line: string; fields?: Record<string, unknown> }[];
  reauthentications: number;
}

async function subscribe(
  sf: RunningSalesforceSandbox,
  replayKey: string,
  overrides: Partial<AccountChangeSubscriberOptions> = {},
): Promise<Subscriber> {
  const handled: AccountChangeEvent[] = [];
  const logs: Subscriber['logs'] = [];
  let token = sf.accessToken;
  const oauth2 = new OAuth2({ clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url });
  const state = { reauthentications: 0 };
  const subscription = await subscribeAccountChanges({
    instanceUrl: sf.url,
    apiVersion: '62.0',
    accessToken: () => token,
    reauthenticate: async () => {
      state.reauthentications++;
      token = (await oauth2.refreshToken(sf.refreshToken)).access_token;
      return token;
    },
    redis,
    replayKey,
    onEvent: async (event) => {
      handled.push(event);
    },
    log: (line, fields) => logs.push({ line, ...(fields ? { fields } : {}) }),
    retryDelayMs: 50,
    startTimeoutMs: 5000,
    ...overrides,
  });
  closers.push(() => subscription.close());
  return {
    handled,
    logs,
    get reauthentications() {
      return state.reauthentications;
    },
    close: () => subscription.close(),
  };
}

const createAccount = (sf: RunningSalesforceSandbox, name: string) =>
  sf.store.create('Account', { Name: name }).id;
const idsOf = (events: AccountChangeEvent[]) => events.map((e) => e.recordIds[0]);

describe('subscribeAccountChanges', () => {
  it('hands each created Account to onEvent, in order, and stores its replay id after', async () => {
    const sf = await start();
    const key = `${PREFIX}created`;
    const sub = await subscribe(sf, key);
    const ids = [createAccount(sf, 'Harris County'), createAccount(sf, 'Dallas ISD')];
    await eventually(() => sub.handled.length === 2);
    expect(idsOf(sub.handled)).toEqual(ids);
    expect(sub.handled[0]).toMatchObject({ changeType: 'CREATE', replayId: 1 });
    expect(typeof sub.handled[0]?.commitTimestamp).toBe('number');
    // The replay id is written once onEvent resolved.
    await eventually(async () => (await redis.get(key)) === '2');
  });

  it('resumes after the stored replay id: a new subscriber gets only what happened meanwhile', async () => {
    const sf = await start();
    const key = `${PREFIX}resume`;
    const first = await subscribe(sf, key);
    createAccount(sf, 'Seen by the first');
    await eventually(() => first.handled.length === 1);
    await first.close();

    const missed = [createAccount(sf, 'Created while down 1'), createAccount(sf, 'Created while down 2')];
    const second = await subscribe(sf, key);
    await eventually(() => second.handled.length === 2);
    expect(idsOf(second.handled)).toEqual(missed);
    const later = createAccount(sf, 'Created after');
    await eventually(() => second.handled.length === 3);
    expect(idsOf(second.handled)).toEqual([...missed, later]);
  });

  it('re-authenticates when the session ends and keeps receiving, without logging a token', async () => {
    const sf = await start();
    const sub = await subscribe(sf, `${PREFIX}reauth`);
    const before = createAccount(sf, 'Before expiry');
    await eventually(() => sub.handled.length === 1);

    sf.auth.expire();
    await eventually(() => sub.reauthentications === 1);
    // Created while the subscriber is between clients: replayed from the stored id.
    const during = createAccount(sf, 'During re-authentication');
    await eventually(() => sub.handled.length === 2);
    const after = createAccount(sf, 'After re-authentication');
    await eventually(() => sub.handled.length === 3);
    expect(idsOf(sub.handled)).toEqual([before, during, after]);
    expect(sub.reauthentications).toBe(1);
    expect(sub.logs.map((l) => l.line).join('\n')).toMatch(/re-authenticating/);
    const logged = JSON.stringify(sub.logs);
    expect(logged).not.toContain(sf.accessToken);
    expect(logged).not.toContain(sf.refreshToken);
    expect(logged).not.toMatch(/!AQ/);
  });

  it('keeps receiving when Salesforce forgets the streaming client (Faye handshakes again)', async () => {
    const sf = await start();
    const sub = await subscribe(sf, `${PREFIX}forgotten`);
    const before = createAccount(sf, 'Before');
    await eventually(() => sub.handled.length === 1);
    sf.streaming.dropClients();
    const after = createAccount(sf, 'After');
    await eventually(() => sub.handled.length === 2);
    expect(idsOf(sub.handled)).toEqual([before, after]);
    expect(sub.reauthentications).toBe(0);
  });

  it('does not lose an event whose onEvent failed: it comes again, before the ones after it', async () => {
    const sf = await start();
    const key = `${PREFIX}failing`;
    const attempts: string[] = [];
    const handled: string[] = [];
    let failNext = true;
    await subscribe(sf, key, {
      onEvent: async (event) => {
        const id = event.recordIds[0] ?? '';
        attempts.push(id);
        if (failNext) {
          failNext = false;
          throw new Error('queue unavailable');
        }
        handled.push(id);
      },
    });
    const ids = [createAccount(sf, 'Fails once'), createAccount(sf, 'Next')];
    await eventually(() => handled.length === 2);
    expect(handled).toEqual(ids);
    expect(attempts[0]).toBe(ids[0]);
    expect(attempts.filter((id) => id === ids[0])).toHaveLength(2);
    await eventually(async () => (await redis.get(key)) === '2');

    // Again with a replay id stored: the resubscribe resumes after it.
    failNext = true;
    const more = [createAccount(sf, 'Fails once too'), createAccount(sf, 'And the next')];
    await eventually(() => handled.length === 4);
    expect(handled).toEqual([...ids, ...more]);
    expect(attempts.filter((id) => id === more[0])).toHaveLength(2);
    await eventually(async () => (await redis.get(key)) === '4');
  });

  it('falls back to every retained event when Salesforce refuses the stored replay id', async () => {
    const sf = await start();
    const key = `${PREFIX}too-old`;
    const retained = [createAccount(sf, 'Retained 1'), createAccount(sf, 'Retained 2')];
    await redis.set(key, '999');
    const sub = await subscribe(sf, key);
    await eventually(() => sub.handled.length === 2);
    expect(idsOf(sub.handled)).toEqual(retained);
    expect(sub.logs.some((l) => l.fields?.level === 'warn' && /replay/.test(l.line))).toBe(true);
    await eventually(async () => (await redis.get(key)) === '2');
  });

  it('starts from every retained event when asked to and Redis holds no replay id', async () => {
    const sf = await start();
    const retained = createAccount(sf, 'Retained');
    const sub = await subscribe(sf, `${PREFIX}initial`, { initialReplay: -2 });
    await eventually(() => sub.handled.length === 1);
    expect(idsOf(sub.handled)).toEqual([retained]);
  });

  it('logs and skips an event of unknown shape', async () => {
    const sf = await start();
    const sub = await subscribe(sf, `${PREFIX}unknown-shape`);
    sf.streaming.log.publishRaw({ Name: 'no header' });
    const id = createAccount(sf, 'After the odd one');
    await eventually(() => sub.handled.length === 1);
    expect(idsOf(sub.handled)).toEqual([id]);
    expect(sub.logs.some((l) => /unknown shape/.test(l.line))).toBe(true);
  });
});
