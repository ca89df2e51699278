// The sandbox's rate limit counts a request as it arrives, as a provider's edge does, not when the
// route gets to it: a request whose body is still on its way has already spent its token.
import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  // The sandbox's default limit: 10 requests/s, burst 1 (a request every 100 ms).
  sandbox = await startSandbox({ rateLimit: { ratePerSecond: 10, burst: 1 } });
});
afterAll(() => sandbox.close());

/** Sends the headers now and the body `bodyAfterMs` later; resolves with the status. */
function slowBody(path: string, body: string, bodyAfterMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${sandbox.token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.flushHeaders();
    setTimeout(() => req.end(body), bodyAfterMs);
  });
}

const search = () =>
  fetch(`${sandbox.url}/api/external/buyer/quick/search?buyerName=Travis%20County`, {
    headers: { Authorization: `Bearer ${sandbox.token}` },
  });

it('counts a request when its headers arrive, not when its body has been read', async () => {
  const bridge = sandbox.dataset.bridges[0];
  if (!bridge) throw new Error('the dataset has no bridge');
  const rowsPath = `/api/external/bridge/${bridge.bridgeId}/row?pageSize=1`;
  // Warm: a first search or row read builds what the sandbox caches (over 100 ms), which would move
  // B's count past A's whichever way the limit counts. Then a whole token again.
  expect((await search()).status).toBe(200);
  await delay(150);
  expect(await slowBody(rowsPath, '{}', 0)).toBe(200);
  await delay(150);
  // A's headers at 0 and its body at 550 ms; B (no body) at 500 ms. Counted as they arrive, A and B
  // are 500 ms apart and both pass. Counted in the route (the emulator's old way), B would have
  // taken the token at 500 and A been refused at 550, 50 ms later.
  const a = slowBody(rowsPath, '{}', 550);
  await delay(500);
  // And the limit still holds: of B and C, sent together, one is refused, with the wait in whole
  // seconds (RFC 9110 delay-seconds).
  const [b, c] = await Promise.all([search(), search()]);
  expect([b.status, c.status].sort()).toEqual([200, 429]);
  expect((b.status === 429 ? b : c).headers.get('retry-after')).toBe('1');
  expect(await a).toBe(200);
});
