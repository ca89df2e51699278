// Closing the HTTP server (SIGTERM to `serve`) lets the requests in flight finish: 40 requests held by
// a slow upstream all get their answer, keep-alive ones included, the close completes once they are
// answered (not at the drain deadline), the port stops accepting at once, and a request that outlives
// the drain deadline is cut then rather than holding the process. A port that cannot be had is one
// line naming the setting to change (PORT, HOST, METRICS_LISTEN), not Node's EADDRINUSE.
import { Agent, request } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { listen, METRICS_SETTING, SERVICE_SETTING } from '../../src/service/listen.ts';

/** An app whose /slow answers wait for `release()`; `arrived(n)` resolves once n requests are in. */
function heldApp() {
  const app = express();
  const waiting: (() => void)[] = [];
  const watchers: { n: number; resolve: () => void }[] = [];
  app.get('/slow', (_req, res) => {
    waiting.push(() => res.json({ ok: true }));
    for (const w of watchers) if (waiting.length >= w.n) w.resolve();
  });
  return {
    app,
    arrived: (n: number) =>
      new Promise<void>((resolve) => {
        if (waiting.length >= n) resolve();
        else watchers.push({ n, resolve });
      }),
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

function get(url: string, agent?: Agent): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end();
  });
}

describe('closing the HTTP server', () => {
  it('answers every request in flight, keep-alive ones too, and refuses new ones', async () => {
    const held = heldApp();
    const server = await listen(held.app);
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const inFlight = [
      ...Array.from({ length: 20 }, () => get(`${server.url}/slow`, agent)),
      ...Array.from({ length: 20 }, () => get(`${server.url}/slow`)),
    ];
    await held.arrived(40);
    // A deadline far beyond the test's own: the close can only complete because the answers went
    // out and their keep-alive sockets were then ended, never by cutting them.
    const closed = server.close(600_000);
    held.release();
    const answers = await Promise.all(inFlight);
    expect(answers.filter((a) => 'status' in a && a.status === 200)).toHaveLength(40);
    await closed;
    expect(await get(`${server.url}/slow`, new Agent())).toEqual({ error: 'ECONNREFUSED' });
    agent.destroy();
  });

  it('cuts a request that outlives the drain deadline', async () => {
    const held = heldApp();
    const server = await listen(held.app);
    const pending = get(`${server.url}/slow`);
    await held.arrived(1);
    await server.close(300);
    expect(await pending).toHaveProperty('error');
  });
});

describe('a port that cannot be had', () => {
  it('says which setting to change, in one line', async () => {
    const taken = await listen(express());
    const port = Number(new URL(taken.url).port);
    await expect(listen(express(), port, '127.0.0.1', SERVICE_SETTING)).rejects.toThrow(
      `127.0.0.1:${port} is already in use by another process: stop it, or set PORT to a free port`,
    );
    await expect(listen(express(), port, '127.0.0.1', METRICS_SETTING)).rejects.toThrow(/set METRICS_LISTEN/);
    await expect(listen(express(), 0, '192.0.2.1', SERVICE_SETTING)).rejects.toThrow(
      '192.0.2.1 is not an address of this machine: set HOST to one of its addresses',
    );
    await taken.close();
  });
});
