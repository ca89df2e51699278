// Redis for the enrichment benches and what it counts. INFO commandstats is server-wide, so the benches
// run on a private redis-server when one can be started (nothing else talks to it, and the counts are
// the service's alone); otherwise on REDIS_URL, where other clients' commands count too (said in the
// report). Redis counts the commands a Lua script runs (redis.call) in commandstats as well as the
// EVALSHA itself, so the totals include scripts' internal calls.
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../emulators/private-redis.ts';

export interface BenchRedis {
  url: string;
  /** A redis-server of the bench's own (commandstats are ours alone). */
  private: boolean;
  stop(): Promise<void>;
}

/** A private redis-server (no persistence), else the one at `fallbackUrl`. */
export async function benchRedis(fallbackUrl: string): Promise<BenchRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const started = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    const probe = async (left: number) => {
      const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => undefined);
      try {
        await r.connect();
        resolve((await r.ping()) === 'PONG');
      } catch {
        if (left > 0) setTimeout(() => probe(left - 1), 100);
        else resolve(false);
      } finally {
        r.disconnect();
      }
    };
    setTimeout(() => probe(30), 50);
  });
  if (!started) {
    child.kill();
    return { url: fallbackUrl, private: false, stop: async () => undefined };
  }
  return {
    url,
    private: true,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Calls per command since the server started (INFO commandstats). */
export async function commandStats(redisUrl: string): Promise<Map<string, number>> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info('commandstats');
    const out = new Map<string, number>();
    for (const line of info.split('\n')) {
      const m = line.match(/^cmdstat_([^:]+):calls=(\d+)/);
      if (m?.[1] && m[2]) out.set(m[1], Number(m[2]));
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

/** Calls per command between two snapshots (the snapshots' own INFO left out). */
export function commandDelta(before: Map<string, number>, after: Map<string, number>) {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [cmd, n] of after) {
    if (cmd === 'info') continue;
    const d = n - (before.get(cmd) ?? 0);
    if (d > 0) {
      byCommand[cmd] = d;
      total += d;
    }
  }
  return { total, byCommand };
}
