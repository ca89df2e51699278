// The Salesforce sandbox's Streaming API (CometD long-polling) driven by the unmodified jsforce 3 Faye
// client: Account change events on /data/AccountChangeEvent, replay from -1, -2 or a stored replay id,
// a refused replay id and channel, and the AuthFailure extension firing when the session ends.
import { Connection } from 'jsforce';
import { StreamingExtension } from 'jsforce/api/streaming';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { eventually } from '../helpers/poll.ts';

const CHANNEL = '/data/AccountChangeEvent';

interface ChangeEvent {
  schema: string;
  payload: {
    ChangeEventHeader: {
      changeType: string;
      recordIds: string[];
      entityName: string;
      changedFields: string[];
    };
    [field: string]: unknown;
  };
  event: { replayId: number };
}

/** What the jsforce typings leave out of Faye's client. */
interface FayeClient {
  subscribe(channel: string, listener: (message: ChangeEvent) => void): PromiseLike<unknown>;
  /** Undefined when not connected; fails when the server no longer knows the client. */
  disconnect(): PromiseLike<unknown> | undefined;
}

/** Ends a Faye client; one the server already dropped (its session ended) answers `Unknown client`. */
const disconnect = (client: FayeClient) => client.disconnect()?.then(undefined, () => {});

const closers: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function start(): Promise<RunningSalesforceSandbox> {
  const sf = await startSalesforceSandbox({ streaming: { connectTimeoutMs: 1000 } });
  closers.push(() => sf.close());
  return sf;
}

interface Listening {
  received: ChangeEvent[];
  authFailures: { error?: string; channel?: string }[];
  subscribed: Promise<unknown>;
  client: FayeClient;
}

function listen(sf: RunningSalesforceSandbox, replayId: number, accessToken = sf.accessToken): Listening {
  const conn = new Connection({ instanceUrl: sf.url, accessToken, version: '62.0' });
  const authFailures: Listening['authFailures'] = [];
  const client = conn.streaming.createClient([
    new StreamingExtension.Replay(CHANNEL, replayId),
    new StreamingExtension.AuthFailure((m: { error?: string; channel?: string }) => authFailures.push(m)),
  ]) as unknown as FayeClient;
  closers.push(() => disconnect(client));
  const received: ChangeEvent[] = [];
  const subscription = client.subscribe(CHANNEL, (m) => received.push(m));
  const subscribed = new Promise((resolve, reject) => subscription.then(resolve, reject));
  // A listener whose handshake is refused never learns about its subscription; nobody awaits it.
  subscribed.catch(() => {});
  return { received, authFailures, subscribed, client };
}

const conn = (sf: RunningSalesforceSandbox) =>
  new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });

async function createAccount(sf: RunningSalesforceSandbox, name: string): Promise<string> {
  const r = (await conn(sf).sobject('Account').create({ Name: name, BillingCity: 'Austin' })) as {
    id: string;
  };
  return r.id;
}

describe('Salesforce sandbox Streaming API', () => {
  it('delivers a created Account as a CREATE change event to a -1 subscriber', async () => {
    const sf = await start();
    await createAccount(sf, 'Before subscribing');
    const l = listen(sf, -1);
    await l.subscribed;
    expect(sf.streaming.clientCount).toBe(1);

    const id = await createAccount(sf, 'Travis County');
    await eventually(() => l.received.length === 1);
    const event = l.received[0];
    expect(event?.payload.ChangeEventHeader).toMatchObject({
      entityName: 'Account',
      changeType: 'CREATE',
      recordIds: [id],
      changedFields: [],
    });
    expect(event?.payload).toMatchObject({ Name: 'Travis County', BillingAddress: { City: 'Austin' } });
    expect(event?.payload.Id).toBeUndefined();
    expect(event?.event.replayId).toBe(2);
    expect(typeof event?.schema).toBe('string');

    await conn(sf).sobject('Account').update({ Id: id, Website: 'https://traviscountytx.gov' });
    await eventually(() => l.received.length === 2);
    expect(l.received[1]?.payload.ChangeEventHeader).toMatchObject({
      changeType: 'UPDATE',
      changedFields: ['Website', 'LastModifiedDate'],
    });
    expect(l.received[1]?.payload.Website).toBe('https://traviscountytx.gov');
  });

  it('replays only the events after a stored replay id, and every retained event from -2', async () => {
    const sf = await start();
    const ids = [await createAccount(sf, 'A'), await createAccount(sf, 'B'), await createAccount(sf, 'C')];
    const firstReplayId = sf.streaming.events[0]?.replayId ?? 0;

    const after = listen(sf, firstReplayId);
    await after.subscribed;
    await eventually(() => after.received.length === 2);
    expect(after.received.map((e) => e.payload.ChangeEventHeader.recordIds[0])).toEqual(ids.slice(1));

    const all = listen(sf, -2);
    await all.subscribed;
    await eventually(() => all.received.length === 3);
    expect(all.received.map((e) => e.payload.ChangeEventHeader.recordIds[0])).toEqual(ids);
  });

  it('refuses a replay id it does not retain, and a channel that does not exist', async () => {
    const sf = await start();
    await createAccount(sf, 'A');
    const l = listen(sf, 12345);
    await expect(l.subscribed).rejects.toMatchObject({
      message:
        '400::The replayId {12345} you provided was invalid. Please provide a valid ID, -2 to replay all events, or -1 to replay only new events.',
    });

    const c = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    const client = c.streaming.createClient([]) as unknown as FayeClient;
    closers.push(() => disconnect(client));
    const sub = client.subscribe('/data/NoSuchChangeEvent', () => {});
    await expect(new Promise((resolve, reject) => sub.then(resolve, reject))).rejects.toMatchObject({
      message: expect.stringContaining('does not exist'),
    });
  });

  it('tells the AuthFailure extension when the session ends, on connect and on handshake', async () => {
    const sf = await start();
    const l = listen(sf, -1);
    await l.subscribed;
    sf.auth.expire(sf.accessToken);
    await eventually(() => l.authFailures.length > 0);
    expect(l.authFailures[0]).toMatchObject({
      channel: '/meta/connect',
      error: '401::Authentication invalid',
    });

    const denied = listen(sf, -1, sf.accessToken);
    await eventually(() => denied.authFailures.length > 0);
    expect(denied.authFailures[0]).toMatchObject({
      channel: '/meta/handshake',
      error: '403::Handshake denied',
    });
  });

  it('makes a forgotten client handshake again and resubscribe from the last replay id it received', async () => {
    const sf = await start();
    const l = listen(sf, -1);
    await l.subscribed;
    const first = await createAccount(sf, 'Before the restart');
    await eventually(() => l.received.length === 1);

    sf.streaming.dropClients();
    await eventually(() => sf.streaming.clientCount === 1);
    const second = await createAccount(sf, 'After the restart');
    await eventually(() => l.received.length === 2);
    expect(l.received.map((e) => e.payload.ChangeEventHeader.recordIds[0])).toEqual([first, second]);
  });

  it('shows clients and retained events under /__sandbox and forgets a client that disconnects', async () => {
    const sf = await start();
    const l = listen(sf, -1);
    await l.subscribed;
    await createAccount(sf, 'Control');
    const body = (await (await fetch(`${sf.url}/__sandbox/streaming`)).json()) as {
      clients: number;
      events: { replayId: number }[];
    };
    expect(body.clients).toBe(1);
    expect(body.events.map((e) => e.replayId)).toEqual([1]);
    l.client.disconnect();
    await eventually(() => sf.streaming.clientCount === 0);
  });
});
