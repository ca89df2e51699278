// With BENCH_SEND_PROBE=<dir>, the customer runs' worker and provider processes load this module
// (`--import`): it writes when each Buyer Intelligence request was written to its socket (the worker)
// and when it reached the emulator's HTTP server and was answered (the provider), to
// `<dir>/<worker|provider>-<pid>.json`. `node bench/send-probe-report.ts --dir <dir>` pairs them: how far
// apart the pace sent requests, how far apart they arrived, and what preceded each 429. It answers
// the question a ratio cannot: did we send too close, or did the way to the provider bunch them?
// Diagnostics channels only (undici's and node:http's), so the code measured is the code shipped.
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type ProbeRow =
  /** The worker wrote a request's headers: epoch ms (µs precision), path, socket id, its n-th request. */
  | ['send', number, string, number, number]
  /** The worker's pace let a request go (src/buyer-intel/shared-rate.ts). */
  | ['release', number]
  /** The provider's server began a request. */
  | ['arrive', number, string]
  /** The provider's server finished its answer, with the status. */
  | ['answer', number, string, number]
  /** The provider's token bucket counted a request (1 admitted, 0 refused). */
  | ['hit', number, number]
  /**
   * The provider's loop was late by this many ms (a 1-ms timer), and of that how long the process
   * waited to run (the kernel's run queue, /proc/self/schedstat): off the CPU, or busy on it.
   */
  | ['stall', number, number, number];

/** The time this process has waited on a run queue, ns (Linux; 0 elsewhere). */
function runQueueNs(): number {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return 0;
  }
}

const dir = process.env.BENCH_SEND_PROBE;
if (dir) {
  const rows: ProbeRow[] = [];
  const now = () => performance.timeOrigin + performance.now();
  const isApi = (path: unknown): path is string =>
    typeof path === 'string' && path.startsWith('/api/external');
  const provider = process.env.BENCH_PROVIDER !== undefined;
  const sockets = new WeakMap<object, { id: number; n: number }>();
  let socketIds = 0;
  if (provider) {
    subscribe('http.server.request.start', (m) => {
      const { request } = m as { request: { url?: string } };
      if (isApi(request.url)) rows.push(['arrive', now(), request.url]);
    });
    // The bucket counts a request in its route handler, after the body is read: where the emulator's
    // own loop could delay one request more than the next. Wrapped here so the emulator stays as shipped.
    const { TokenBucketLimiter } = await import('../emulators/shared/faults.ts');
    const hit = TokenBucketLimiter.prototype.hit;
    TokenBucketLimiter.prototype.hit = function (this: InstanceType<typeof TokenBucketLimiter>, key) {
      const verdict = hit.call(this, key);
      rows.push(['hit', now(), verdict.ok ? 1 : 0]);
      return verdict;
    };
    let last = performance.now();
    let queued = runQueueNs();
    setInterval(() => {
      const t = performance.now();
      const q = runQueueNs();
      if (t - last > 3) rows.push(['stall', now(), t - last - 1, (q - queued) / 1e6]);
      last = t;
      queued = q;
    }, 1).unref();
    subscribe('http.server.response.finish', (m) => {
      const { request, response } = m as { request: { url?: string }; response: { statusCode: number } };
      if (isApi(request.url)) rows.push(['answer', now(), request.url, response.statusCode]);
    });
  } else {
    subscribe('buyer-intel-sync:pace:release', (m) => {
      rows.push(['release', performance.timeOrigin + (m as { at: number }).at]);
    });
    subscribe('undici:client:sendHeaders', (m) => {
      // Published just before undici's synchronous socket.write (client-h1.js, writeH1).
      const { request, socket } = m as { request: { path?: string }; socket: object };
      if (!isApi(request.path)) return;
      let s = sockets.get(socket);
      if (!s) {
        s = { id: ++socketIds, n: 0 };
        sockets.set(socket, s);
      }
      rows.push(['send', now(), request.path, s.id, ++s.n]);
    });
  }
  // Written every second as well as at exit: the provider process is ended by a signal.
  const file = join(dir, `${provider ? 'provider' : 'worker'}-${process.pid}.json`);
  let written = 0;
  const flush = () => {
    if (rows.length === written) return;
    written = rows.length;
    writeFileSync(file, JSON.stringify(rows));
  };
  setInterval(flush, 1_000).unref();
  process.on('exit', flush);
}
