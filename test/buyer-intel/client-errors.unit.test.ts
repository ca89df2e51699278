// Every error status of the spec's table, through the client, against the sandbox; and the retry
// behaviour around them. Delays are recorded through the client's sleep seam, not waited for.
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import {
  AuthenticationError,
  BadRequestError,
  BuyerIntelClient,
  BuyerIntelError,
  ConnectionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnsupportedMediaTypeError,
} from '../../src/buyer-intel/index.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
afterEach(() => {
  sandbox.faults.clear();
  sandbox.stats.reset();
});

const buyerId = () => sandbox.dataset.buyers[0]?.id ?? '';
const privateBridge = () => {
  const b = sandbox.dataset.bridges.find((x) => !x.sharedWithAll);
  if (!b) throw new Error('no private bridge');
  return b;
};

async function failure(promise: Promise<unknown>): Promise<BuyerIntelError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof BuyerIntelError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('error statuses', () => {
  it('400: an unmapped sort column, not retried, names the problem', async () => {
    const { client, sleeps } = clientFor(sandbox);
    const bridge = sandbox.dataset.bridges[0]?.bridgeId ?? '';
    const err = await failure(
      client.listBridgeRows(bridge, { sorts: [{ column: 'Due Date', direction: 'DESC' }] }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.status).toBe(400);
    expect(err.operation).toBe('listBridgeRows');
    expect(err.message).toContain('sort column "Due Date" is not mapped');
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sleeps).toEqual([]);
    expect(sandbox.stats.count('listBridgeRows')).toBe(1);
  });

  it('400: pageSize out of bounds', async () => {
    const { client } = clientFor(sandbox);
    const bridge = sandbox.dataset.bridges[0]?.bridgeId ?? '';
    for (const pageSize of [0, 101]) {
      const err = await failure(client.listBridgeRows(bridge, {}, { pageSize }));
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toContain('pageSize must be between 1 and 100');
    }
  });

  it('401: a wrong token, never echoed in the error', async () => {
    const secret = 'sk_live_do-not-leak-me';
    const { client } = clientFor(sandbox, { token: secret });
    const err = await failure(client.getBuyerAttributesBulk(buyerId(), ['Name']));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.message).toContain('BUYER_INTEL_TOKEN was refused');
    expect(JSON.stringify({ message: err.message, body: err.body, stack: err.stack })).not.toContain(secret);
  });

  it('401: no Authorization header at all', async () => {
    const res = await fetch(`${sandbox.url}/api/external/buyer/quick/search?buyerName=Austin`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toMatchObject({ status: 401, message: 'missing bearer token' });
  });

  it('403: a restricted token on a private bridge', async () => {
    const { client } = clientFor(sandbox, { token: sandbox.restrictedToken });
    const err = await failure(client.getBridge(privateBridge().bridgeId));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err.status).toBe(403);
  });

  it('404: an unknown buyer', async () => {
    const { client } = clientFor(sandbox);
    const err = await failure(
      client.getBuyerAttributesBulk('00000000-0000-4000-8000-000000000000', ['Name']),
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain('no buyer with id');
  });

  it('415: the sandbox refuses a body that is not JSON, and the client maps the status', async () => {
    const bridge = sandbox.dataset.bridges[0]?.bridgeId ?? '';
    const res = await fetch(`${sandbox.url}/api/external/bridge/${bridge}/row`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${sandbox.token}`, 'Content-Type': 'text/plain' },
      body: 'filters=none',
    });
    expect(res.status).toBe(415);
    // Our client always sends JSON, so the status can only reach it from the server's side.
    sandbox.faults.inject({ kind: 'status', status: 415, match: 'listBridgeRows' });
    const err = await failure(clientFor(sandbox).client.listBridgeRows(bridge));
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
  });

  it('429: past the sandbox rate limit, with Retry-After; the error says how long to wait', async () => {
    // 2 a minute, 2 at once: the third call waits ~30 s for a token.
    const limited = await startSandbox({ rateLimit: { ratePerSecond: 2 / 60, burst: 2 } });
    try {
      const { client, sleeps } = clientFor(limited, { retry: { maxAttempts: 3, maxRetryAfterMs: 5_000 } });
      await client.getBuyerAttribute(buyerId(), 'Name');
      await client.getBuyerAttribute(buyerId(), 'Name');
      const err = await failure(client.getBuyerAttribute(buyerId(), 'Name'));
      expect(err).toBeInstanceOf(RateLimitError);
      // Retry-After (~30 s) is longer than we wait inside one call: no retry, the caller gets the delay.
      expect((err as RateLimitError).retryAfterMs).toBeGreaterThan(5_000);
      expect(sleeps).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('500: retried, and after the last attempt a ServerError', async () => {
    sandbox.faults.inject({ kind: 'status', status: 500, times: 10 });
    const { client, sleeps } = clientFor(sandbox, { retry: { maxAttempts: 3 } });
    const err = await failure(client.getBuyerAttribute(buyerId(), 'Name'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.permanent).toBe(false);
    expect(sleeps).toHaveLength(2);
    expect(sandbox.stats.count('getBuyerAttribute', 500)).toBe(3);
  });
});

describe('retries', () => {
  it('429 then success', async () => {
    sandbox.faults.inject({ kind: 'status', status: 429, match: 'searchBuyers' });
    const { client, sleeps } = clientFor(sandbox);
    const { buyers } = await client.searchBuyers({ buyerName: 'Springfield' });
    expect(buyers.length).toBeGreaterThan(0);
    expect(sleeps).toHaveLength(1);
    expect(sandbox.stats.count('searchBuyers', 429)).toBe(1);
    expect(sandbox.stats.count('searchBuyers', 200)).toBe(1);
  });

  it('500 twice then success', async () => {
    sandbox.faults.inject({ kind: 'status', status: 500, times: 2, match: 'getBuyerAttributesBulk' });
    const { client, sleeps } = clientFor(sandbox, { random: () => 1 });
    const res = await client.getBuyerAttributesBulk(buyerId(), ['Name']);
    expect(res.buyerData?.Name).toBeTruthy();
    // random() = 1 hits the exponential ceiling: 250 ms, then 500 ms.
    expect(sleeps).toEqual([250, 500]);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(3);
  });

  it('honours Retry-After', async () => {
    sandbox.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 3, match: 'getBuyerAttribute' });
    const { client, sleeps } = clientFor(sandbox);
    await client.getBuyerAttribute(buyerId(), 'Name');
    expect(sleeps).toEqual([3_000]);
  });

  it('does not retry other 4xx', async () => {
    const { client, sleeps } = clientFor(sandbox);
    await failure(client.getBuyerAttribute(buyerId(), 'NoSuchKey' as 'Name'));
    expect(sleeps).toEqual([]);
    expect(sandbox.stats.count('getBuyerAttribute', 400)).toBe(1);
  });

  it('retries a connection that is refused, then reports a ConnectionError', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const sleeps: number[] = [];
    const client = new BuyerIntelClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 't',
      rateLimit: false,
      retry: { maxAttempts: 2 },
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const err = await failure(client.getBuyerSchema());
    expect(err).toBeInstanceOf(ConnectionError);
    expect(sleeps).toHaveLength(1);
  });

  it('times out a slow answer and retries it', async () => {
    sandbox.faults.inject({ kind: 'delay', ms: 1_000, match: 'getBuyerSchema' });
    const { client, sleeps } = clientFor(sandbox, { timeoutMs: 150 });
    const res = await client.getBuyerSchema();
    expect(res.fields.length).toBe(179);
    expect(sleeps).toHaveLength(1);

    sandbox.faults.inject({ kind: 'delay', ms: 1_000, times: 2, match: 'getBuyerSchema' });
    const once = clientFor(sandbox, { timeoutMs: 150, retry: { maxAttempts: 1 } });
    expect(await failure(once.client.getBuyerSchema())).toBeInstanceOf(TimeoutError);
  });
});

describe('responses that break the contract', () => {
  it('a missing required field names the operation and the path', async () => {
    sandbox.faults.inject({ kind: 'drop-field', field: 'buyerId', match: 'getBuyerAttributesBulk' });
    const err = await failure(clientFor(sandbox).client.getBuyerAttributesBulk(buyerId(), ['Name']));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as ResponseValidationError).path).toBe('buyerId');
    expect(err.message).toMatch(/^getBuyerAttributesBulk: unexpected response at buyerId/);
  });

  it('a nested bad field is named by its path', async () => {
    const { client } = clientFor(sandbox, {
      fetch: async () =>
        new Response(
          JSON.stringify({
            buyers: [
              { id: 'a', name: 'A' },
              { id: 7, name: 'B' },
            ],
          }),
          {
            headers: { 'content-type': 'application/json' },
          },
        ),
    });
    const err = await failure(client.searchBuyers({ buyerName: 'x' }));
    expect((err as ResponseValidationError).path).toBe('buyers[1].id');
  });

  it('malformed JSON is a ResponseValidationError, not a crash', async () => {
    sandbox.faults.inject({ kind: 'malformed-json', match: 'listTopRecentSignals' });
    const err = await failure(clientFor(sandbox).client.listTopRecentSignals());
    expect(err).toBeInstanceOf(ResponseValidationError);
  });
});

describe('arguments we refuse to send', () => {
  it('an unknown state is refused before any request', async () => {
    const { client, urls } = clientFor(sandbox);
    const err = await failure(client.searchBuyers({ buyerName: 'Austin', buyerStateCode: 'Texass' }));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toContain('unknown state "Texass"');
    expect(urls).toEqual([]);
  });
});
