// REDIS_URL as managed Redis services hand it out, checked once at start with every problem named:
// cluster mode, TLS certificates, an ACL user; and on a cluster a hash-tagged REDIS_PREFIX.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redisTarget } from '../../queues/redis-url.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadEnv } from '../../src/config/env.ts';

const dir = mkdtempSync(join(tmpdir(), 'redis-url-'));
const ca = join(dir, 'ca.pem');
writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = {
  BUYER_INTEL_BASE_URL: 'https://bi.example.com',
  BUYER_INTEL_TOKEN: 't',
  HUBSPOT_ACCESS_TOKEN: 'x',
  HUBSPOT_PORTAL_ID: '1',
  HUBSPOT_CLIENT_SECRET: 's',
};
const problems = (vars: Record<string, string>): string[] => {
  try {
    loadEnv({ ...base, ...vars });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('REDIS_URL', () => {
  it('reads a cluster, TLS with a CA, and an ACL user with a password', () => {
    const target = redisTarget(
      `rediss://app%40ops:p%3Ass@cache.example.com:6380?cluster=true&ssl_ca_certs=${ca}`,
    );
    expect(target).toMatchObject({ cluster: true, host: 'cache.example.com', port: 6380 });
    expect(target.options).toMatchObject({ username: 'app@ops', password: 'p:ss' });
    expect(String(target.options.tls?.ca)).toContain('BEGIN CERTIFICATE');
    expect(redisTarget('redis://127.0.0.1:6379/2')).toMatchObject({ cluster: false, options: { db: 2 } });
    expect(
      problems({ REDIS_URL: `rediss://h:6380?cluster=true&ssl_ca_certs=${ca}`, REDIS_PREFIX: '{bis}' }),
    ).toEqual([]);
  });

  it('reads further seeds of a cluster, and refuses them without cluster=true or malformed', () => {
    expect(redisTarget('redis://a:7100?cluster=true&nodes=b:7101,[::1]:7102')).toMatchObject({
      host: 'a',
      port: 7100,
      seeds: [
        { host: 'b', port: 7101 },
        { host: '::1', port: 7102 },
      ],
    });
    expect(problems({ REDIS_URL: 'redis://a:7100?nodes=b:7101' }).join('\n')).toContain(
      'nodes names the seeds of a cluster: add cluster=true',
    );
    expect(
      problems({ REDIS_URL: 'redis://a?cluster=true&nodes=b', REDIS_PREFIX: '{bis}' }).join('\n'),
    ).toContain('nodes must be host:port items separated by commas, got "b"');
  });

  it('names each wrong option, and a cluster without a hash-tagged prefix', () => {
    expect(problems({ REDIS_URL: 'redis://h:6379?clustr=true' }).join('\n')).toContain(
      'REDIS_URL unknown option clustr in the query',
    );
    expect(problems({ REDIS_URL: `redis://h?ssl_ca_certs=${ca}` }).join('\n')).toContain(
      'need a rediss:// URL',
    );
    expect(problems({ REDIS_URL: 'rediss://h?ssl_ca_certs=/no/such/ca.pem' }).join('\n')).toContain(
      'ssl_ca_certs /no/such/ca.pem cannot be read (ENOENT)',
    );
    expect(problems({ REDIS_URL: 'redis://h:7100?cluster=true' }).join('\n')).toContain(
      'REDIS_PREFIX must be a hash tag on a Redis Cluster (REDIS_URL ?cluster=true), e.g. {bis}',
    );
    expect(problems({ REDIS_PREFIX: '{bis' }).join('\n')).toContain('REDIS_PREFIX');
  });
});
