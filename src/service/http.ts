// The HTTP tier: each configured CRM's webhook at /webhooks/<kind> and its extra routes, the
// provider's row webhooks, our API (API keys and each CRM's signed requests), health, metrics and the
// operator pages. Assembly only.
import { once } from 'node:events';
import express, { type Router } from 'express';
import { readBudgets } from '../../connectors/limits.ts';
import { readRefusals } from '../../connectors/permission-refusals.ts';
import { crmOf } from '../../connectors/registry.ts';
import type { EnrichJob } from '../../queues/enrich-queue.ts';
import { enqueueInto } from '../../queues/signal-queue.ts';
import { crmFieldNames } from '../admin/crm-field-names.ts';
import { recordUrlOf } from '../admin/record-link.ts';
import { adminRouter } from '../admin/router.ts';
import { refreshActions } from '../api/actions.ts';
import { apiRouter } from '../api/router.ts';
import { readSharedRate } from '../buyer-intel/shared-rate.ts';
import { crmFeatures } from '../config/crm-features.ts';
import { readUsage } from '../observe/usage.ts';
import { reviewService } from '../review/service.ts';
import { tenantConnections } from '../tenants/connections.ts';
import { buyerIntelWebhookRouter } from '../webhooks/buyer-intel.ts';
import { addCountingNew } from '../webhooks/new-jobs.ts';
import { webhookReceiver } from '../webhooks/receiver.ts';
import type { ServiceCore } from './core.ts';
import { createHttpApp, metricsHandler } from './http-app.ts';
import { listen, METRICS_SETTING, SERVICE_SETTING } from './listen.ts';
import { mappingConsoleOf } from './mapping-console.ts';

export async function startHttp(core: ServiceCore, port: number, host?: string) {
  const { settings, redis, queues, crms } = core;
  const { prefix } = settings;
  // The producer connection fails fast instead of queueing commands; give it a moment to connect so
  // the first requests after a start are not refused (a Redis that stays down: serve anyway, /readyz
  // says so and deliveries get a retry-later answer).
  if (redis.producer.status !== 'ready')
    await Promise.race([
      once(redis.producer, 'ready'),
      new Promise((r) => setTimeout(r, 5_000).unref()),
    ]).catch(() => undefined);

  const security = settings.security ?? { metrics: {}, apiDocsPublic: false, inboundAccountWindowMs: 0 };
  const receiver = {
    publicBaseUrl: settings.publicBaseUrl,
    accountWindowMs: security.inboundAccountWindowMs,
    attempts: settings.worker.attempts,
    enqueue: (jobs: EnrichJob[]) => addCountingNew(queues.enrich, jobs),
    store: core.store,
    onMisaddressed: ({ publicBaseUrl, arrivedAt }: { publicBaseUrl: string; arrivedAt: string }) =>
      core.log.warn(
        `a webhook's signature holds for ${new URL(arrivedAt).origin}, not PUBLIC_BASE_URL=${publicBaseUrl}: set PUBLIC_BASE_URL to the address the CRM posts to, or every signed delivery is refused (401)`,
        { publicBaseUrl, arrivedAt: new URL(arrivedAt).origin },
      ),
  };
  const webhooks: Record<string, Router> = {};
  const routes: { path: string; router: Router }[] = [];
  const signed = [];
  const crmRuntime = (crm: string) => ({ ...core.runtime(crm), redis: redis.producer });
  for (const kind of crms.kinds()) {
    const crm = crmOf(kind);
    const config = crms.configOf(kind);
    const handler = crm.webhook?.(config, {
      isKnownTenant: (id) => crms.has(kind, id),
      inboundSecretsOf: (id) => crms.inboundSecretsOf(kind, id),
      tenants: () => crms.tenantsOf(kind),
    });
    if (handler) webhooks[kind] = webhookReceiver(handler, { ...receiver, crmLabel: crm.label });
    const check = crm.signedRequests?.(config, crmRuntime(kind), {
      tenants: () => crms.tenantsOf(kind),
      requestSecretsOf: (id) => crms.requestSecretsOf(kind, id),
    });
    if (check) signed.push({ crm: kind, check });
    routes.push(
      ...(crm.routes?.(config, {
        redis: redis.producer,
        prefix,
        publicBaseUrl: settings.publicBaseUrl,
        features: crmFeatures(settings),
        addTenant: core.addTenant,
      }) ?? []),
    );
  }
  const biWebhooks = settings.buyerIntel.webhooks;
  if (biWebhooks && (biWebhooks.secrets.length || biWebhooks.publicKeys.length))
    webhooks['buyer-intel'] = buyerIntelWebhookRouter({
      verify: { secrets: biWebhooks.secrets, publicKeys: biWebhooks.publicKeys },
      redis: redis.producer,
      prefix,
      enqueue: enqueueInto(queues.signal),
      attempts: settings.worker.attempts,
      log: core.log,
    });

  // /metrics shows what the CRMs last said is left of each tenant's limits (any worker's answers).
  core.metrics.readCrmLimitsFrom(() => readBudgets(redis.producer, prefix));
  const { history } = core;
  const actionOptions = {
    queue: queues.enrich,
    redis: redis.producer,
    prefix,
    history,
    store: core.store,
    connectorFor: core.connector,
    attempts: settings.worker.attempts,
  };
  const app = createHttpApp({
    api: apiRouter({
      ...actionOptions,
      backfillQueue: queues.backfill,
      maintenanceQueue: queues.maintenance,
      auth: { apiKeys: settings.api?.apiKeys ?? [], signed },
      publicBaseUrl: settings.publicBaseUrl,
      tenantsOf: (crm) => crms.tenantsOf(crm),
    }),
    routes,
    webhooks,
    ready: async () =>
      (await redis.producer.ping()) === 'PONG' &&
      !(await queues.enrich.isPaused()) &&
      !(await queues.maintenance.isPaused()) &&
      (await core.store.answers()),
    // On its own listener when METRICS_LISTEN says so; else here, behind METRICS_TOKEN; else not served.
    ...(!security.metrics.listen && security.metrics.token
      ? { metrics: { registry: core.metrics.registry, token: security.metrics.token } }
      : {}),
    apiDocsPublic: security.apiDocsPublic,
    publicBaseUrl: settings.publicBaseUrl,
    logger: core.logger,
    ...(settings.admin
      ? {
          admin: {
            ...settings.admin,
            queues: queues.observed,
            pages: adminRouter({
              history,
              actions: refreshActions(actionOptions),
              review: reviewService(actionOptions),
              store: core.store,
              user: settings.admin.username,
              recordUrl: recordUrlOf(core.connector),
              refusals: () => readRefusals(redis.producer, prefix),
              mapping: {
                console: mappingConsoleOf(core),
                source: settings.mappingFile ?? 'the built-in mapping',
                configured: settings.match,
                file: settings.mapping,
                crms: () => crmFieldNames(crms),
              },
              budgets: {
                crmLimits: () => readBudgets(redis.producer, prefix),
                usage: () => readUsage(redis.producer, prefix, 24),
                configuredRate: settings.buyerIntel.ratePerSecond,
              },
              undo: { maintenanceQueue: queues.maintenance, connectorFor: core.connector },
              connections: () =>
                tenantConnections({
                  served: crms,
                  store: core.tenantStore,
                  redis: redis.producer,
                  features: crmFeatures(settings),
                  refusals: () => readRefusals(redis.producer, prefix),
                }),
              rate: () =>
                readSharedRate(
                  redis.producer,
                  prefix,
                  settings.buyerIntel.token,
                  settings.buyerIntel.ratePerSecond,
                ),
            }),
          },
        }
      : {}),
  });
  const main = await listen(app, port, host, SERVICE_SETTING);
  const at = security.metrics.listen;
  if (!at) return main;
  const metricsApp = express();
  metricsApp.disable('x-powered-by');
  metricsApp.get('/metrics', metricsHandler(core.metrics.registry, security.metrics.token));
  const metrics = await listen(metricsApp, at.port, at.host, METRICS_SETTING).catch(async (err: unknown) => {
    await main.close();
    throw err;
  });
  return {
    ...main,
    metricsUrl: metrics.url,
    close: async () => {
      await Promise.all([main.close(), metrics.close()]);
    },
  };
}
