// Closing the HTTP server (SIGTERM to `serve`) lets the requests in flight finish: 40 requests waiting
// on a slow upstream all get their answer, keep-alive ones included, the port stops accepting at once,
// and a request that outlives the drain deadline is cut then rather than holding the process.
import { Agent, request } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/service/listen.ts';

function slowApp(ms: number) {
  const app = express();
  app.get('/slow', (_req, res) => {
    setTimeout(() => res.json({ ok: true }), ms);
  });
  return app;
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
    const server = await listen(slowApp(400));
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const inFlight = [
      ...Array.from({ length: 20 }, () => get(`${server.url}/slow`, agent)),
      ...Array.from({ length: 20 }, () => get(`${server.url}/slow`)),
    ];
    await new Promise((r) => setTimeout(r, 100));
    const closed = server.close();
    const answers = await Promise.all(inFlight);
    expect(answers.filter((a) => 'status' in a && a.status === 200)).toHaveLength(40);
    const started = Date.now();
    await closed;
    // Not held until the deadline by the keep-alive sockets once their answers went out.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await get(`${server.url}/slow`, new Agent())).toEqual({ error: 'ECONNREFUSED' });
    agent.destroy();
  });

  it('cuts a request that outlives the drain deadline', async () => {
    const server = await listen(slowApp(60_000));
    const pending = get(`${server.url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    await server.close(300);
    expect(await pending).toHaveProperty('error');
  });
});
