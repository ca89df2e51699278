import { type Command, numberOption } from '../../src/cli/command.ts';
import { startBuyerIntelSandbox } from '../buyer-intel/server.ts';
import { startHubSpotSandbox } from '../hubspot/server.ts';
import { startSalesforceSandbox } from '../salesforce/server.ts';
import { type SeededAccount, seedHubSpot, seedSalesforce } from './sandbox-accounts.ts';
import { DEFAULT_SERVICE_URL, eventTargets, SANDBOX_WEBHOOK_SECRET, serviceExports } from './sandbox-env.ts';

const SALESFORCE_API_VERSION = '62.0';
// Fixed so that an .env written from this output keeps working after the sandbox restarts (the
// HubSpot emulator's private-app token is fixed already); sessions are issued from it as needed.
const SALESFORCE_REFRESH_TOKEN = '5Aep861sandbox.RefreshToken.0000000000000000000000000000000000000000000';

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary:
    'Run the local emulators of the Buyer Intelligence API, HubSpot and Salesforce (no credentials needed)',
  usage: `buyer-intel-sync sandbox [options]

Starts the three emulators, creates a few accounts in each CRM (the same ids on every start) and
prints the environment that points the service at them. A company or Account created from then on is
sent to the service at --service-url (HubSpot's webhooks, Salesforce's Outbound Messages), as are the
provider's row webhooks: run \`buyer-intel-sync start\` with the printed environment and it is enriched.

Options:
  --service-url <url>    where the service listens (default ${DEFAULT_SERVICE_URL}, the address
                         \`start\` takes with the printed PORT)
  --database-url <url>   the PostgreSQL the service and the CLI share (default DATABASE_URL, else a
                         database of its own, buyer_intel_sandbox, on 127.0.0.1:5432 when it answers)
  --port <n>             Buyer Intelligence port (default 4010; 0 = any free port)
  --hubspot-port <n>     HubSpot emulator port (default 4020; 0 = any free port)
  --salesforce-port <n>  Salesforce emulator port (default 4030; 0 = any free port)
  --host <addr>          address to bind (default 127.0.0.1)
  --seed <n>             data set seed (default 42)
  --latency-ms <n>       added latency per request (default 0)
  --error-rate <p>       probability of an injected 500 (default 0)
  --rate-limit-rate <p>  probability of an injected 429 (default 0)
  --rate-limit <n>       requests per minute per token, a token bucket (default 600; 0 disables)
  --rate-burst <n>       requests the bucket lets through at once (default 1: none documented)`,
  options: {
    'service-url': { type: 'string' },
    'database-url': { type: 'string' },
    port: { type: 'string' },
    'hubspot-port': { type: 'string' },
    'salesforce-port': { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    'latency-ms': { type: 'string' },
    'error-rate': { type: 'string' },
    'rate-limit-rate': { type: 'string' },
    'rate-limit': { type: 'string' },
    'rate-burst': { type: 'string' },
  },
  async run(values) {
    const perMinute = numberOption(values, 'rate-limit', 600);
    const burst = numberOption(values, 'rate-burst', 1);
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const ports = {
      buyerIntel: numberOption(values, 'port', 4010),
      hubspot: numberOption(values, 'hubspot-port', 4020),
      salesforce: numberOption(values, 'salesforce-port', 4030),
    };
    const serviceUrl =
      typeof values['service-url'] === 'string' ? values['service-url'] : DEFAULT_SERVICE_URL;
    if (!URL.canParse(serviceUrl) || !/^https?:$/.test(new URL(serviceUrl).protocol))
      throw new Error(`--service-url must be an http(s) URL, got "${serviceUrl}"`);
    const databaseUrl =
      typeof values['database-url'] === 'string'
        ? values['database-url']
        : process.env.DATABASE_URL || undefined;
    const faults = {
      latencyMs: numberOption(values, 'latency-ms', 0),
      errorRate: numberOption(values, 'error-rate', 0),
      rateLimitRate: numberOption(values, 'rate-limit-rate', 0),
    };
    const started = performance.now();
    // When one cannot start (its port is taken), those already listening are closed, or they would keep
    // the process alive after the error line.
    const running: { close(): Promise<void> }[] = [];
    const start = async <T extends { close(): Promise<void> }>(
      name: string,
      option: string,
      launch: () => Promise<T>,
    ): Promise<T> => {
      try {
        const emulator = await launch();
        running.push(emulator);
        return emulator;
      } catch (err) {
        await Promise.all(running.map((r) => r.close()));
        const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        throw new Error(
          `${name}: ${(err as Error).message}${inUse ? ` (choose another with ${option})` : ''}`,
        );
      }
    };
    const sandbox = await start('Buyer Intelligence sandbox', '--port', () =>
      startBuyerIntelSandbox({
        port: ports.buyerIntel,
        host,
        seed: numberOption(values, 'seed', 42),
        rateLimit: perMinute > 0 ? { ratePerSecond: perMinute / 60, burst: Math.max(1, burst) } : false,
        faults,
        webhooks: { secret: SANDBOX_WEBHOOK_SECRET },
      }),
    );
    const hubspot = await start('HubSpot emulator', '--hubspot-port', () =>
      startHubSpotSandbox({ port: ports.hubspot, host }),
    );
    const salesforce = await start('Salesforce emulator', '--salesforce-port', () =>
      startSalesforceSandbox({
        port: ports.salesforce,
        host,
        auth: { refreshToken: SALESFORCE_REFRESH_TOKEN },
      }),
    );
    // Before anything else touches the emulators: their id counters then hand out the README's ids.
    const companies = seedHubSpot(hubspot);
    const accounts = seedSalesforce(salesforce);
    // Then every new company or Account goes to the service, as a portal's webhook subscription and an
    // org's Flow with an Outbound Message would send it; the seeded ones stay for the dry runs.
    const targets = eventTargets(serviceUrl);
    // The seeded companies' events wait in HubSpot's batch window: sent nowhere (no target yet), they go.
    hubspot.webhooks.flush();
    hubspot.webhooks.configure({ targetUrl: targets.hubspot, propertyChanges: [] });
    salesforce.outbound.configure({ endpointUrl: targets.salesforce });
    sandbox.webhooks.configure({ url: targets.buyerIntel });
    const service = await serviceExports(serviceUrl, databaseUrl);
    // Listening for the stop signals before printing that we are ready: a caller that stops us as soon
    // as it reads the last line must not meet the default SIGTERM action (exit without closing).
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    const ms = Math.round(performance.now() - started);
    const list = (label: string, seeded: SeededAccount[]) =>
      seeded.map(
        (a, i) =>
          `  ${i === 0 ? label.padEnd(11) : ' '.repeat(11)} ${a.id}  ${a.name}${a.state ? `, ${a.state}` : ''}`,
      );
    const [company] = companies;
    const [account] = accounts;
    process.stdout.write(
      [
        `Buyer Intelligence sandbox: ${sandbox.url}  (${sandbox.dataset.buyers.length} buyers, ${sandbox.dataset.bridges.length} bridges, ${sandbox.dataset.rows.length} signals; ready in ${ms} ms)`,
        `  token:            ${sandbox.token}`,
        `  restricted token: ${sandbox.restrictedToken}  (403 on private bridges)`,
        `  try: curl -H 'Authorization: Bearer ${sandbox.token}' '${sandbox.url}/api/external/buyer/quick/search?buyerName=Austin&buyerStateCode=Texas'`,
        `HubSpot emulator: ${hubspot.url}  (portal ${hubspot.portalId})`,
        ...list('companies:', companies),
        `  try: curl -H 'Authorization: Bearer ${hubspot.accessToken}' '${hubspot.url}/crm/v3/objects/companies/${company?.id}?properties=name,state'`,
        `Salesforce emulator: ${salesforce.url}  (org ${salesforce.orgId})`,
        ...list('Accounts:', accounts),
        `  try: curl -H 'Authorization: Bearer ${salesforce.accessToken}' '${salesforce.url}/services/data/v${SALESFORCE_API_VERSION}/query?q=SELECT+Id,Name,BillingState+FROM+Account'`,
        `  create one: curl -X POST -H 'Authorization: Bearer ${salesforce.accessToken}' -H 'Content-Type: application/json' '${salesforce.url}/services/data/v${SALESFORCE_API_VERSION}/sobjects/Account' -d '{"Name": "Travis County", "BillingState": "TX"}'`,
        `Events go to the service at ${serviceUrl}: HubSpot webhooks to ${targets.hubspot}, Salesforce Outbound Messages to ${targets.salesforce.split('?')[0]}, provider row webhooks to ${targets.buyerIntel}`,
        '',
        'Point the service at them: paste these lines into a shell (or into .env):',
        `export BUYER_INTEL_BASE_URL=${sandbox.url}`,
        `export BUYER_INTEL_TOKEN=${sandbox.token}`,
        `export HUBSPOT_BASE_PATH=${hubspot.url}`,
        `export HUBSPOT_ACCESS_TOKEN=${hubspot.accessToken}`,
        `export HUBSPOT_PORTAL_ID=${hubspot.portalId}`,
        `export HUBSPOT_CLIENT_SECRET=${hubspot.clientSecret}`,
        `export HUBSPOT_APP_ID=${hubspot.appId}`,
        `export SALESFORCE_INSTANCE_URL=${salesforce.url}`,
        `export SALESFORCE_LOGIN_URL=${salesforce.url}`,
        `export SALESFORCE_ORG_ID=${salesforce.orgId}`,
        `export SALESFORCE_CLIENT_ID=${salesforce.clientId}`,
        `export SALESFORCE_CLIENT_SECRET=${salesforce.clientSecret}`,
        `export SALESFORCE_REFRESH_TOKEN=${salesforce.refreshToken}`,
        `export SALESFORCE_API_VERSION=${SALESFORCE_API_VERSION}`,
        ...service,
        '',
        'Then, for example:',
        `  npm run -s cli -- enrich --crm hubspot --account ${company?.id} --dry-run`,
        '  npm run -s cli -- setup --crm salesforce    # once: our custom fields on Account',
        `  npm run -s cli -- enrich --crm salesforce --account ${account?.id} --dry-run`,
        '  npm run -s cli -- setup --crm hubspot && npm run -s cli -- start    # then create a company: it is enriched',
        'Ctrl-C stops them.',
        '',
      ].join('\n'),
    );
    await stopped;
    await Promise.all([sandbox.close(), hubspot.close(), salesforce.close()]);
    return 0;
  },
};
