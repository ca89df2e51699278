import { type Command, numberOption } from '../../src/cli/command.ts';
import { startBuyerIntelSandbox } from '../buyer-intel/server.ts';
import { startHubSpotSandbox } from '../hubspot/server.ts';

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'Run the local emulators of the Buyer Intelligence API and HubSpot (no credentials needed)',
  usage: `buyer-intel-sync sandbox [options]

Options:
  --port <n>             Buyer Intelligence port (default 4010; 0 = any free port)
  --hubspot-port <n>     HubSpot emulator port (default 4020; 0 = any free port)
  --host <addr>          address to bind (default 127.0.0.1)
  --seed <n>             data set seed (default 42)
  --latency-ms <n>       added latency per request (default 0)
  --error-rate <p>       probability of an injected 500 (default 0)
  --rate-limit-rate <p>  probability of an injected 429 (default 0)
  --rate-limit <n>       requests per minute per token before 429 (default 600; 0 disables)`,
  options: {
    port: { type: 'string' },
    'hubspot-port': { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    'latency-ms': { type: 'string' },
    'error-rate': { type: 'string' },
    'rate-limit-rate': { type: 'string' },
    'rate-limit': { type: 'string' },
  },
  async run(values) {
    const perMinute = numberOption(values, 'rate-limit', 600);
    const started = performance.now();
    const sandbox = await startBuyerIntelSandbox({
      port: numberOption(values, 'port', 4010),
      host: typeof values.host === 'string' ? values.host : '127.0.0.1',
      seed: numberOption(values, 'seed', 42),
      rateLimit: perMinute > 0 ? { requests: perMinute, windowMs: 60_000 } : false,
      faults: {
        latencyMs: numberOption(values, 'latency-ms', 0),
        errorRate: numberOption(values, 'error-rate', 0),
        rateLimitRate: numberOption(values, 'rate-limit-rate', 0),
      },
    });
    const hubspot = await startHubSpotSandbox({
      port: numberOption(values, 'hubspot-port', 4020),
      host: typeof values.host === 'string' ? values.host : '127.0.0.1',
    });
    const ms = Math.round(performance.now() - started);
    process.stdout.write(
      [
        `Buyer Intelligence sandbox: ${sandbox.url}  (${sandbox.dataset.buyers.length} buyers, ${sandbox.dataset.bridges.length} bridges, ${sandbox.dataset.rows.length} signals; ready in ${ms} ms)`,
        `  token:            ${sandbox.token}`,
        `  restricted token: ${sandbox.restrictedToken}  (403 on private bridges)`,
        `  try: curl -H 'Authorization: Bearer ${sandbox.token}' '${sandbox.url}/api/external/buyer/quick/search?buyerName=Austin&buyerStateCode=Texas'`,
        `HubSpot emulator: ${hubspot.url}  (portal ${hubspot.portalId})`,
        '',
        'Point the service at both (e.g. in .env):',
        `  BUYER_INTEL_BASE_URL=${sandbox.url}`,
        `  BUYER_INTEL_TOKEN=${sandbox.token}`,
        `  HUBSPOT_BASE_PATH=${hubspot.url}`,
        `  HUBSPOT_ACCESS_TOKEN=${hubspot.accessToken}`,
        `  HUBSPOT_PORTAL_ID=${hubspot.portalId}`,
        `  HUBSPOT_CLIENT_SECRET=${hubspot.clientSecret}`,
        `  HUBSPOT_APP_ID=${hubspot.appId}`,
        'Ctrl-C stops them.',
        '',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await Promise.all([sandbox.close(), hubspot.close()]);
    return 0;
  },
};
