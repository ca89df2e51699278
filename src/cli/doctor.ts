// `buyer-intel-sync doctor`: checks the configuration and every dependency the way the service uses
// them, one line each, and exits 0 when nothing failed (warnings allowed), 1 otherwise.
import { CRMS, crmKinds, crmOf } from '../../connectors/registry.ts';
import { ConfigError } from '../config/config-error.ts';
import { crmFeatures } from '../config/crm-features.ts';
import { type Env, loadEnv } from '../config/env.ts';
import {
  checkBuyerIntel,
  checkCrms,
  checkRedis,
  DEFAULT_CHECK_TIMEOUT_MS,
  redact,
  redisUrlProblem,
  secretsOf,
} from '../doctor/checks.ts';
import { checkCrmLimits } from '../doctor/crm-limits.ts';
import { checkDatabase } from '../doctor/database.ts';
import { checkPublicBaseUrl } from '../doctor/public-base-url.ts';
import type { CheckResult, CheckStatus } from '../doctor/result.ts';
import { checkStoredTenants } from '../doctor/stored-tenants.ts';
import { checkWorkers } from '../doctor/workers.ts';
import { followUpSettings } from '../follow-ups/settings.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { type CommandBody, EXIT_FAILURE, EXIT_OK, numberOption } from './command.ts';

/** Every stored tenant's line (stored-tenants.ts), through a service that starts no worker. */
async function storedTenantLines(env: Env, timeoutMs: number): Promise<CheckResult[]> {
  const settings = await settingsFromEnv(env);
  if (!settings.tenants) return [];
  const service = createService(settings);
  try {
    return await checkStoredTenants(
      service,
      crmKinds(),
      (kind) => {
        const config = env.crms[kind];
        return config === undefined ? [] : crmOf(kind).configuredTenants(config);
      },
      crmFeatures({
        signals: { maxNotesPerRun: env.SIGNALS_MAX_NOTES_PER_RUN },
        followUps: followUpSettings(env),
        digest: env.digest,
      }),
      timeoutMs,
    );
  } catch (err) {
    return [
      { name: 'stored tenants', status: 'fail', detail: `cannot read them: ${(err as Error).message}` },
    ];
  } finally {
    await service.close();
  }
}

const LABEL: Record<CheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skip: 'SKIP' };

export const doctorCommand: CommandBody = {
  usage: `buyer-intel-sync doctor [options]

Checks, one PASS / WARN / FAIL / SKIP line each:
  config                   the environment (every problem is listed)
  public base url          PUBLIC_BASE_URL, which signed webhooks are checked against: not an absolute
                           http(s) URL, with a query, fragment, credentials or a route's path: FAIL;
                           another path, or unset where a configured CRM signs the URL it calls: WARN
  redis                    PING at REDIS_URL
  redis mode               standalone, or a cluster (REDIS_URL ?cluster=true, REDIS_PREFIX a hash tag
                           such as {bis}); a cluster the URL does not say, or a replica: FAIL
  redis permissions        the Redis user may run every command the service needs on REDIS_PREFIX's
                           keys (an ACL user: each is tried on keys of its own); a refused one: FAIL,
                           naming the ACL rule to add
  redis version            6.2 or newer (BullMQ)
  redis maxmemory-policy   noeviction (anything else can drop queued jobs: FAIL; CONFIG disabled: WARN)
  redis persistence        AOF or RDB snapshots configured (neither: WARN, jobs are lost on restart)
                           (on a cluster: every master, the worst shown)
  database                 the PostgreSQL at DATABASE_URL answers and has no migration pending (a
                           pending one: FAIL); no DATABASE_URL: WARN (the embedded one serves start only)
  buyer intelligence api   one authenticated read (401: the token is wrong)
${CRMS.map(
  (
    c,
  ) => `  ${c.kind.padEnd(24)} one ${c.accountNoun} read with its credentials (when configured), and a read per
                           enabled feature that needs a scope of its own (a missing one: FAIL)`,
).join('\n')}
  <crm> tenant <id>        per tenant kept in the database (tenants add, an install): one page of
                           accounts, and the owners where a feature reads them, with its own token
                           (refused, or a scope missing: FAIL); stored ones that cannot be decrypted
                           with TOKEN_ENCRYPTION_KEY: FAIL as "stored tenants"
  workers                  BullMQ's workers on the enrich queues: none with jobs waiting FAIL, none
                           and nothing waiting WARN
  <crm> <tenant> daily     per tenant, the daily API calls its CRM last reported used and left
                           (WARN at or below CRM_DAILY_HEADROOM: its backfill waits)
  <crm> <tenant> permissions  per tenant whose calls of the last day were refused for a scope or
                           permission its credentials lack: FAIL, naming it and the refused call
Exits 0 when nothing failed (warnings allowed), 1 otherwise. Never prints a token or secret.

Options:
  --timeout-ms <n>   deadline per check (default ${DEFAULT_CHECK_TIMEOUT_MS})`,
  options: { 'timeout-ms': { type: 'string' } },
  async run(values) {
    const timeoutMs = numberOption(values, 'timeout-ms', DEFAULT_CHECK_TIMEOUT_MS);
    const secrets = secretsOf(process.env);
    const results: CheckResult[] = [];
    const print = (r: CheckResult) => {
      results.push(r);
      const lines = [
        `${LABEL[r.status]}  ${r.name.padEnd(24)} ${r.detail}`,
        ...(r.more ?? []).map((m) => `        - ${m}`),
      ];
      process.stdout.write(`${redact(lines.join('\n'), secrets)}\n`);
    };

    let env: Env | undefined;
    try {
      env = loadEnv();
      const crms = Object.entries(env.crms).flatMap(([kind, config]) => {
        const crm = crmOf(kind);
        const tenants = crm.configuredTenants(config);
        return tenants.length
          ? tenants.map((t) => `${crm.label} ${crm.tenantNoun} ${t}`)
          : [`${crm.label} app`];
      });
      print({ name: 'config', status: 'pass', detail: `environment is valid (${crms.join(', ')})` });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      print({
        name: 'config',
        status: 'fail',
        detail: `${err.problems.length} problem${err.problems.length === 1 ? '' : 's'} in the environment:`,
        more: err.problems,
      });
    }

    // As given, like REDIS_URL below: a malformed value is named even when the configuration fails.
    const signers = env
      ? CRMS.filter((c) => c.signsUrl && env?.crms[c.kind] !== undefined).map((c) => ({
          kind: c.kind,
          signsUrl: c.signsUrl ?? '',
        }))
      : undefined;
    print(checkPublicBaseUrl(process.env.PUBLIC_BASE_URL, signers));

    // Redis is checked even with a bad configuration, at REDIS_URL as given (the default when unset);
    // an invalid REDIS_URL fails the check: testing the default instead would pass on another Redis.
    const rawRedisUrl = process.env.REDIS_URL?.trim() || undefined;
    const badRedisUrl = rawRedisUrl === undefined ? undefined : redisUrlProblem(rawRedisUrl);
    if (badRedisUrl) {
      print({ name: 'redis', status: 'fail', detail: badRedisUrl });
      for (const name of [
        'redis mode',
        'redis permissions',
        'redis version',
        'redis maxmemory-policy',
        'redis persistence',
      ])
        print({ name, status: 'skip', detail: 'needs a valid REDIS_URL' });
    } else {
      const redisUrl = env?.REDIS_URL ?? rawRedisUrl ?? 'redis://127.0.0.1:6379';
      const prefix = env?.REDIS_PREFIX ?? process.env.REDIS_PREFIX?.trim() ?? 'bis';
      for (const r of await checkRedis(redisUrl, timeoutMs, prefix || 'bis')) print(r);
    }
    // What is read from Redis (workers, CRM limits) is skipped when Redis failed, rather than each
    // waiting out its own deadline to say the same thing.
    const redisFailed =
      badRedisUrl !== undefined || results.some((r) => r.name === 'redis' && r.status === 'fail');

    if (env) {
      const results = await Promise.all([
        checkDatabase(env, timeoutMs),
        checkBuyerIntel(env, timeoutMs),
        ...checkCrms(env, timeoutMs),
      ]);
      for (const r of results) print(r);
      const databaseOk = results.some((r) => r.name === 'database' && r.status !== 'fail');
      if (!redisFailed && databaseOk) for (const r of await storedTenantLines(env, timeoutMs)) print(r);
      if (redisFailed) print({ name: 'workers', status: 'skip', detail: 'Redis is not reachable' });
      else {
        print(await checkWorkers(env.REDIS_URL, env.REDIS_PREFIX, timeoutMs));
        for (const r of await checkCrmLimits(
          env.REDIS_URL,
          env.REDIS_PREFIX,
          env.CRM_DAILY_HEADROOM,
          timeoutMs,
        ))
          print(r);
      }
    } else {
      for (const name of ['database', 'buyer intelligence api', ...crmKinds()])
        print({ name, status: 'skip', detail: 'needs a valid configuration' });
    }

    const failed = results.filter((r) => r.status === 'fail').length;
    const warned = results.filter((r) => r.status === 'warn').length;
    process.stdout.write(
      failed
        ? `\n${failed} check${failed === 1 ? '' : 's'} failed${warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : ''}.\n`
        : `\nAll checks passed${warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}.\n`,
    );
    return failed ? EXIT_FAILURE : EXIT_OK;
  },
};
