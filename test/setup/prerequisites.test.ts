// What a newcomer meets before any test runs: a Redis is found or started, and a missing prerequisite
// stops the run with one line naming the package to install.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkChromium, ensureRedis, MissingPrerequisite, redisAnswers } from './prerequisites.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'prerequisites-test-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A URL where nothing listens. */
async function silentUrl(): Promise<string> {
  return `redis://127.0.0.1:${await getPort({ host: '127.0.0.1' })}`;
}

describe('Redis', () => {
  it('uses the Redis at REDIS_URL when it answers, and starts nothing', async () => {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const redis = await ensureRedis({ url });
    expect(redis).toMatchObject({ url, started: false });
    await redis.stop();
    expect(await redisAnswers(url)).toBe(true);
  });

  it('starts a private redis-server when nothing answers, and stop() removes it and its folder', async () => {
    const url = await silentUrl();
    const redis = await ensureRedis({ url });
    try {
      expect(redis.started).toBe(true);
      expect(redis.url).not.toBe(url);
      expect(await redisAnswers(redis.url)).toBe(true);
      expect(redis.dir && existsSync(redis.dir)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(await redisAnswers(redis.url)).toBe(false);
    expect(redis.dir && existsSync(redis.dir)).toBe(false);
  });

  it('stops with one line naming the package when nothing answers and redis-server is not installed', async () => {
    const url = await silentUrl();
    const started = ensureRedis({ url, searchPath: scratch });
    await expect(started).rejects.toThrow(
      new MissingPrerequisite(
        `Redis does not answer at ${url} and redis-server is not installed: apt-get install -y redis-server (or set REDIS_URL)`,
      ),
    );
  });
});

describe('Chromium', () => {
  const line = 'Chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH)';

  it('stops with one line naming the package when the executable is missing', async () => {
    await expect(checkChromium(join(scratch, 'no-chromium'))).rejects.toThrow(new MissingPrerequisite(line));
  });

  it('stops with the same line when the file is there but cannot be run', async () => {
    const file = join(scratch, 'not-executable');
    await writeFile(file, '');
    await chmod(file, 0o644);
    await expect(checkChromium(file)).rejects.toThrow(new MissingPrerequisite(line));
  });

  it('accepts an executable at CHROMIUM_PATH', async () => {
    const file = join(scratch, 'chromium');
    await writeFile(file, '#!/bin/sh\n');
    await chmod(file, 0o755);
    await expect(checkChromium(file)).resolves.toBeUndefined();
  });
});

/** vitest run with only Node on PATH (no redis-server, no chromium) and nothing answering at REDIS_URL. */
async function bareMachineRun(args: string[], url: string) {
  // Wherever this Node lives, redis-server may live beside it: a folder holding only a link to node.
  const bin = await mkdtemp(join(scratch, 'bin-'));
  await symlink(process.execPath, join(bin, 'node'));
  // The nested vitest must not think it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  Object.assign(env, { PATH: bin, REDIS_URL: url, CHROMIUM_PATH: '/nonexistent', CI: '', NO_COLOR: '1' });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...args],
      { cwd: ROOT, env },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('an integration run on a machine missing both', () => {
  it('prints one line per missing package, runs no test and exits non-zero', async () => {
    const url = await silentUrl();
    const result = await bareMachineRun(
      ['--project', 'integration', 'test/store/store-contract.test.ts'],
      url,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'Chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH)',
      `Redis does not answer at ${url} and redis-server is not installed: apt-get install -y redis-server (or set REDIS_URL)`,
      '',
    ]);
    expect(result.stdout).not.toMatch(/Test Files|passed|failed/);
  });
});

describe('a unit run on the same machine', () => {
  it('asks for neither and runs its tests', async () => {
    const url = await silentUrl();
    const result = await bareMachineRun(['--project', 'unit', 'test/map/fit.unit.test.ts'], url);
    expect(result.stderr).not.toMatch(/not installed|does not answer/);
    expect(result.stdout).toMatch(/Test Files {2}1 passed/);
    expect(result.code).toBe(0);
  });
});
