// A connection that fails says why in words: real failures (a closed port, a name DNS does not know, a
// TLS client on a plain port, a reset, a server that never answers), through fetch (undici), node:net
// and ioredis, put into the words of src/shared/network-cause.ts and queues/redis.ts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pingRedis, RedisUnavailableError } from '../../queues/redis.ts';
import { describeNetworkFailure, endpointOf, networkCause } from '../../src/shared/network-cause.ts';
import { CLOSED_PORT, freePort } from '../helpers/ports.ts';

function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );

const http = createHttpServer((_, res) => res.end('plain'));
// Accepts, then never says a word.
const silent = createServer((socket) => socket.on('error', () => undefined));
// Accepts, then resets the connection at the first byte.
const resetting = createServer((socket) => {
  socket.on('error', () => undefined);
  socket.once('data', () => socket.resetAndDestroy());
});
let httpPort: number;
let silentPort: number;
let resetPort: number;
let closedPort: number;

beforeAll(async () => {
  [httpPort, silentPort, resetPort] = await Promise.all([listen(http), listen(silent), listen(resetting)]);
  closedPort = CLOSED_PORT;
});
afterAll(() => {
  http.close();
  silent.close();
  resetting.close();
});

describe('networkCause (fetch)', () => {
  it('connection refused, naming the endpoint without credentials, path or query', async () => {
    const url = `http://user:pw@127.0.0.1:${closedPort}/v1/things?token=abc`;
    const err = await failureOf(fetch(`http://127.0.0.1:${closedPort}/v1/things`));
    expect(describeNetworkFailure(url, err)).toBe(`http://127.0.0.1:${closedPort}: connection refused`);
  });

  it('host not found for a name DNS does not know', async () => {
    const err = await failureOf(fetch('http://no-such-host.invalid/'));
    expect(networkCause(err)).toMatch(/^host not found in DNS/);
  });

  it('TLS handshake failed for https:// on a plain HTTP port', async () => {
    const err = await failureOf(fetch(`https://127.0.0.1:${httpPort}/`));
    expect(networkCause(err)).toBe('TLS handshake failed');
  });

  it('connection reset', async () => {
    const err = await failureOf(fetch(`http://127.0.0.1:${resetPort}/`));
    expect(networkCause(err)).toBe('connection reset');
  });

  it('timed out when no answer comes within the deadline', async () => {
    const err = await failureOf(
      fetch(`http://127.0.0.1:${silentPort}/`, { signal: AbortSignal.timeout(200) }),
    );
    expect(networkCause(err)).toBe('timed out');
  });

  it('a code on the error itself (node-fetch, as jsforce uses it)', () => {
    const err = Object.assign(new Error('request to http://x/ failed, reason: connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
    });
    expect(networkCause(err)).toBe('connection refused');
  });

  it('nothing for an error that is no network failure', () => {
    expect(networkCause(new SyntaxError('Unexpected token < in JSON'))).toBeUndefined();
    expect(describeNetworkFailure('http://127.0.0.1:1', new Error('boom'))).toBeUndefined();
  });

  it('endpointOf keeps scheme, host and a non-default port only', () => {
    expect(endpointOf('redis://:secret@10.0.0.5:6380/2')).toBe('redis://10.0.0.5:6380');
    expect(endpointOf('https://api.hubapi.com/crm/v3?hapikey=x')).toBe('https://api.hubapi.com');
    expect(endpointOf('not a url')).toBe('(invalid URL)');
  });
});

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('pingRedis', () => {
  const reasonOf = async (url: string, timeoutMs?: number) => {
    const err = await failureOf(pingRedis(url, timeoutMs));
    expect(err).toBeInstanceOf(RedisUnavailableError);
    return (err as RedisUnavailableError).reason;
  };

  it('connection refused, host not found, timed out', async () => {
    expect(await reasonOf(`redis://127.0.0.1:${closedPort}`)).toBe('connection refused');
    expect(await reasonOf('redis://no-such-host.invalid:6379')).toMatch(/^host not found in DNS/);
    expect(await reasonOf(`redis://127.0.0.1:${silentPort}`, 500)).toBe('timed out');
    expect(await reasonOf(`rediss://127.0.0.1:${silentPort}`, 500)).toBe(
      'timed out (TLS handshake: is it a TLS port?)',
    );
  });

  describe.runIf(hasRedisServer())('with a password', () => {
    let server: ChildProcess;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', 'right-password', '--save', ''],
        { stdio: 'ignore' },
      );
      const probe = new Redis(`redis://:right-password@127.0.0.1:${port}`, {
        retryStrategy: () => 50,
        maxRetriesPerRequest: null,
      });
      probe.on('error', () => undefined);
      await probe.ping();
      probe.disconnect();
    });
    afterAll(async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    });

    it('authentication failed, never naming the password', async () => {
      expect(await reasonOf(`redis://127.0.0.1:${port}`)).toMatch(
        /^authentication failed: Redis wants a password/,
      );
      const err = await failureOf(pingRedis(`redis://:wrong-password@127.0.0.1:${port}`));
      expect((err as RedisUnavailableError).message).toBe(
        `Redis does not answer at redis://127.0.0.1:${port} (authentication failed: wrong user or password)`,
      );
      await expect(pingRedis(`redis://:right-password@127.0.0.1:${port}`)).resolves.toBeUndefined();
    });
  });
});
