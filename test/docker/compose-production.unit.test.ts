// What docker-compose.yml must hold to run in production (issue 44, item 8), read as data: migrations
// once before the service, pinned images, required secrets, only the app published (on loopback by
// default), limits and rotated logs on every service, and grace periods above each role's drain as the
// code's own constants give it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRMS } from '../../connectors/registry.ts';
import { coreSchema } from '../../src/config/env.ts';
import { HTTP_DRAIN_MS } from '../../src/service/listen.ts';
import { COMPOSE_TEXT, compose, ROOT, SECRETS, service } from './compose-file.ts';

/** Seconds of a compose duration (`90s`, `2m`, `1m30s`). */
function seconds(duration: string | undefined): number {
  const parts = [...(duration ?? '').matchAll(/(\d+)(h|m|s)/g)];
  if (!parts.length) throw new Error(`not a duration: ${duration}`);
  return parts.reduce((n, [, v, unit]) => n + Number(v) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1), 0);
}

/** A variable's default, as the config schema gives it when nothing is set. */
function schemaDefault(name: string): number {
  const shape: Record<string, { parse(v: unknown): unknown }> = Object.assign(
    {},
    coreSchema.shape,
    ...CRMS.map((crm) => crm.config.variables),
  );
  const field = shape[name];
  if (!field) throw new Error(`no variable ${name}`);
  return Number(field.parse(undefined));
}

describe('docker-compose.yml in production (issue 44, item 8)', () => {
  const names = Object.keys(compose.services);

  it('migrates once, after Redis and PostgreSQL are healthy and before app and worker start', () => {
    const migrate = service('migrate');
    expect(migrate.command).toEqual(['node', 'src/cli.ts', 'migrate']);
    expect(migrate.restart).toBe('no');
    expect(migrate.image).toBe(service('app').image);
    expect(migrate.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(migrate.depends_on?.redis?.condition).toBe('service_healthy');
    expect(migrate.depends_on?.migrate).toBeUndefined();
    expect(migrate.healthcheck?.disable).toBe(true);
    for (const name of ['app', 'worker'])
      expect(service(name).depends_on?.migrate?.condition, name).toBe('service_completed_successfully');
  });

  it('pins every pulled image by tag and digest, and builds ours from a pinned base', () => {
    for (const name of names) {
      const s = service(name);
      // The documented exception: the images built here (`build:`), tagged :local; their FROM is pinned.
      if (s.build) expect(s.image, name).toMatch(/:local$/);
      else expect(s.image, name).toMatch(/^[a-z0-9./-]+:\d+\.\d+(\.\d+)?-[a-z0-9.-]+@sha256:[0-9a-f]{64}$/);
    }
    for (const file of ['Dockerfile', 'emulators/Dockerfile']) {
      const froms = readFileSync(join(ROOT, file), 'utf8').match(/^FROM .*$/gm) ?? [];
      expect(froms.length, file).toBeGreaterThan(0);
      // A `# syntax=` frontend is an image too: none, or pinned.
      const syntax = readFileSync(join(ROOT, file), 'utf8').match(/^# syntax=(\S+)/m)?.[1];
      if (syntax) expect(syntax, file).toMatch(/@sha256:[0-9a-f]{64}$/);
      for (const from of froms)
        expect(from, file).toMatch(/^FROM node:24\.\d+\.\d+-slim@sha256:[0-9a-f]{64}\b/);
    }
  });

  it('requires its secrets: no default for any of them, so no known password', () => {
    for (const name of SECRETS) {
      expect(COMPOSE_TEXT, name).toMatch(new RegExp(`\\$\\{${name}:\\?[^}]+\\}`));
      expect(COMPOSE_TEXT, name).not.toMatch(new RegExp(`\\$\\{${name}:?-`));
    }
    // Every default compose fills in is a name, a port or a size, never a credential.
    const defaulted = [...COMPOSE_TEXT.matchAll(/\$\{([A-Z_]+):?-/g)].map((m) => m[1]);
    expect(new Set(defaulted)).toEqual(
      new Set(['POSTGRES_USER', 'POSTGRES_DB', 'APP_BIND', 'APP_PORT', 'REDIS_MAXMEMORY']),
    );
    // .env.example names each one, and the new compose variables, and no longer keeps tenants in Redis.
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const name of [
      ...SECRETS,
      'APP_BIND',
      'APP_PORT',
      'POSTGRES_USER',
      'POSTGRES_DB',
      'REDIS_MAXMEMORY',
    ])
      expect(example, name).toMatch(new RegExp(`^${name}=`, 'm'));
    expect(example).not.toMatch(/tenants?[^\n]*kept in Redis/i);
  });

  it('publishes only the app, on loopback by default; Redis and PostgreSQL stay on an internal network', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation, not a template string
    expect(service('app').ports).toEqual(['${APP_BIND:-127.0.0.1}:${APP_PORT:-3000}:3000']);
    for (const name of names)
      for (const port of service(name).ports ?? []) {
        // host:container alone would bind every interface.
        expect(port.replace(/\$\{[^}]+\}/g, 'x').split(':').length, `${name} ${port}`).toBe(3);
        expect(port, name).not.toMatch(/^0\.0\.0\.0:/);
        expect(port, name).toMatch(/^(127\.0\.0\.1|\$\{APP_BIND:-127\.0\.0\.1\}):/);
      }
    expect(compose.networks.internal?.internal).toBe(true);
    for (const name of ['redis', 'postgres', 'migrate']) {
      expect(service(name).ports, name).toBeUndefined();
      expect(service(name).networks, name).toEqual(['internal']);
    }
    // app and worker reach Redis/PostgreSQL inside, and the CRMs and the provider outside.
    for (const name of ['app', 'worker'])
      expect(service(name).networks, name).toEqual(['internal', 'outbound']);
  });

  it('limits every service’s memory and CPU and rotates its logs', () => {
    for (const name of names) {
      const s = service(name);
      expect(s.deploy?.resources?.limits?.memory, name).toMatch(/^\d+[mg]$/);
      expect(Number(s.deploy?.resources?.limits?.cpus), name).toBeGreaterThan(0);
      expect(s.logging?.driver, name).toBe('json-file');
      expect(s.logging?.options?.['max-size'], name).toMatch(/^\d+m$/);
      expect(Number(s.logging?.options?.['max-file']), name).toBeGreaterThan(1);
    }
  });

  it('gives each role longer to stop than its drain takes', () => {
    // app: the requests in flight get HTTP_DRAIN_MS, then queues and connections close.
    expect(seconds(service('app').stop_grace_period)).toBeGreaterThanOrEqual(HTTP_DRAIN_MS / 1000 + 10);
    // worker: the accounts in flight, WORKER_CONCURRENCY of them at ~2.5 provider calls each (the 50 s
    // measured at 200 accounts and 10 requests/s, issue 44) at the shared BUYER_INTEL_RATE_PER_SECOND;
    // a backfill chunk's account may wait BACKFILL_BATCH_WAIT_MS; the last write batch may take a CRM
    // call's whole deadline.
    const inFlightS =
      (schemaDefault('WORKER_CONCURRENCY') * 2.5) / schemaDefault('BUYER_INTEL_RATE_PER_SECOND');
    expect(inFlightS).toBe(50);
    const crmDeadlineS =
      Math.max(
        ...CRMS.flatMap((crm) =>
          Object.keys(crm.config.variables).filter((v) => v.endsWith('_TIMEOUT_MS')),
        ).map(schemaDefault),
      ) / 1000;
    const drainS = inFlightS + schemaDefault('BACKFILL_BATCH_WAIT_MS') / 1000 + crmDeadlineS;
    expect(seconds(service('worker').stop_grace_period)).toBeGreaterThanOrEqual(drainS + 10);
  });
});
