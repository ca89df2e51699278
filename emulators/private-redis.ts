// The demo needs a Redis. Use the one at REDIS_URL when it answers; otherwise, when redis-server is
// installed, start a private one on a free port (nothing persisted) and stop it afterwards.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { redisClient } from '../queues/redis-url.ts';

async function answers(url: string): Promise<boolean> {
  const probe = redisClient(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A TCP port free on 127.0.0.1 right now (the benches' private servers use it too). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface DemoRedis {
  url: string;
  private: boolean;
  stop(): Promise<void>;
}

export async function redisForDemo(url: string): Promise<DemoRedis> {
  if (await answers(url)) return { url, private: false, stop: async () => undefined };
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = new Promise<never>((_, reject) => {
    child.once('error', () =>
      reject(
        new Error(
          `no Redis answers at ${url} and redis-server could not be started: start Redis or set REDIS_URL`,
        ),
      ),
    );
  });
  const privateUrl = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await Promise.race([answers(privateUrl), failed])) break;
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`a private redis-server on port ${port} did not answer`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: privateUrl,
    private: true,
    stop: async () => {
      child.kill();
    },
  };
}
