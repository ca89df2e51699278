// Which keys the window's Redis commands touch: with BENCH_REDIS_MONITOR=<file>, the backfill bench
// tallies every command of its window (MONITOR; the client's own and those Lua scripts run apart) by
// command and key shape (digits as #), per account finished, into that file, with the bytes their
// arguments carry (as MONITOR prints them, escapes included: near what the client wrote). For finding
// who issues them; MONITOR costs Redis CPU, so figures of such a run are not the bench's.

import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';

export interface RedisMonitor {
  /** Stops and writes the tally, per account. */
  finish(accounts: number): void;
}

export async function redisMonitor(url: string, file: string): Promise<RedisMonitor> {
  const shapes = new Map<string, { calls: number; bytes: number }>();
  const { port, hostname } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setEncoding('utf8');
  let buffered = '';
  const started = new Promise<void>((resolve) => {
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end = buffered.indexOf('\r\n');
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\r\n');
        if (line === '+OK') resolve();
        const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
        if (!m?.[1] || m[2] === undefined) continue;
        const args = [...m[2].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1] ?? '');
        const name = (args[0] ?? '').toLowerCase();
        const key = name === 'eval' || name === 'evalsha' ? args[3] : args[1];
        const shape = `${m[1] === 'lua' ? 'lua ' : ''}${name} ${(key ?? '')
          .replace(/^([^:]*:(bi-cache|match):(lease:)?[a-z]*).*$/, '$1:…')
          .replace(/(answer|search|attributes|feed|criteria|signals):.*$/, '$1:…')
          .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uuid>')
          .replace(/\d+/g, '#')}`;
        const tally = shapes.get(shape) ?? { calls: 0, bytes: 0 };
        tally.calls += 1;
        for (const a of args) tally.bytes += a.length;
        shapes.set(shape, tally);
      }
    });
  });
  socket.write('MONITOR\r\n');
  await started;
  return {
    finish(accounts) {
      socket.destroy();
      const rows = [...shapes.entries()]
        .map(([shape, { calls, bytes }]) => ({
          shape,
          perAccount: +(calls / Math.max(1, accounts)).toFixed(3),
          bytesPerAccount: Math.round(bytes / Math.max(1, accounts)),
        }))
        .filter((r) => r.perAccount >= 0.01)
        .sort((a, b) => b.perAccount - a.perAccount);
      writeFileSync(file, `${JSON.stringify(rows, null, 1)}\n`);
    },
  };
}
