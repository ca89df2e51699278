// What a `worker` serves on METRICS_LISTEN (it has no other port): /metrics, the same registry `serve`
// shows (job durations, upstream calls, 429 waits, outcomes of the jobs this process ran), and
// /healthz, 200 while its workers consume and 503 naming why not (worker-health.ts: liveness, restart
// on failure), and /readyz, 200 while Redis and the database answer (readiness: nothing to restart for,
// but jobs cannot finish). Assembly only.
import express from 'express';
import type { ServiceCore } from './core.ts';
import { metricsHandler } from './http-app.ts';
import { type Listening, listen, METRICS_SETTING } from './listen.ts';
import type { WorkerHealth } from './worker-health.ts';

export async function startWorkerHttp(
  core: ServiceCore,
  health: WorkerHealth,
  at: { host: string; port: number },
): Promise<Listening> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsHandler(core.metrics.registry, core.settings.security?.metrics.token));
  app.get('/healthz', async (_req, res) => {
    const verdict = await health.check().catch((err: unknown) => ({
      ok: false,
      detail: `cannot read the queues: ${err instanceof Error ? err.message : String(err)}`,
    }));
    res
      .status(verdict.ok ? 200 : 503)
      .json({ status: verdict.ok ? 'ok' : 'stalled', detail: verdict.detail });
  });
  app.get('/readyz', async (_req, res) => {
    const [redis, database] = await Promise.all([
      core.redis.producer.ping().then(
        (pong) => pong === 'PONG',
        () => false,
      ),
      core.store.answers(),
    ]);
    const down = [...(redis ? [] : ['Redis']), ...(database ? [] : ['the database'])];
    res
      .status(down.length ? 503 : 200)
      .json(
        down.length
          ? { status: 'not ready', detail: `${down.join(' and ')} not answering` }
          : { status: 'ready' },
      );
  });
  return listen(app, at.port, at.host, METRICS_SETTING);
}
