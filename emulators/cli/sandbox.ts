// `npm run sandbox`: its options and its life (until SIGINT or SIGTERM); what it starts and prints is
// sandbox-start.ts. The CRM emulators and their --<kind>-port options come from emulators/registry.ts.
import { type Command, numberOption } from '../../src/cli/command.ts';
import { EMULATORS } from '../registry.ts';
import { DEFAULT_SERVICE_URL } from './sandbox-env.ts';
import { portOption, startSandboxes } from './sandbox-start.ts';

/** "the Buyer Intelligence API, HubSpot and Salesforce", from the registry. */
const apiNames = () => {
  const names = ['the Buyer Intelligence API', ...EMULATORS.map((e) => e.label.replace(/ emulator$/, ''))];
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
};
const portLines = () =>
  EMULATORS.map(
    (e) =>
      `  --${`${portOption(e.kind)} <n>`.padEnd(20)} ${e.label} port (default ${e.port}; 0 = any free port)`,
  ).join('\n');

export const sandboxCommand: Command = {
  name: 'sandbox',
  get summary() {
    return `Run the local emulators of ${apiNames()} (no credentials needed)`;
  },
  // Read when asked for, so that an emulator a test registered is listed and takes its port option.
  get usage() {
    return `buyer-intel-sync sandbox [options]

Starts the emulators, creates a few accounts in each CRM (the same ids on every start) and prints the
environment that points the service at them. An account created from then on is sent to the service at
--service-url (each CRM's own events: HubSpot's webhooks, Salesforce's Outbound Messages, …), as are
the provider's row webhooks: run \`buyer-intel-sync start\` with the printed environment and it is
enriched.

Options:
  --service-url <url>    where the service listens (default ${DEFAULT_SERVICE_URL}, the address
                         \`start\` takes with the printed PORT; in docker compose, http://app:3000)
  --database-url <url>   the PostgreSQL the service and the CLI share (default DATABASE_URL, else a
                         database of its own, buyer_intel_sandbox, on 127.0.0.1:5432 when it answers)
  --port <n>             Buyer Intelligence port (default 4010; 0 = any free port)
${portLines()}
  --host <addr>          address to bind (default 127.0.0.1)
  --seed <n>             data set seed (default 42)
  --latency-ms <n>       added latency per request (default 0)
  --error-rate <p>       probability of an injected 500 (default 0)
  --rate-limit-rate <p>  probability of an injected 429 (default 0)
  --rate-limit <n>       requests per minute per token, a token bucket (default 600; 0 disables)
  --rate-burst <n>       requests the bucket lets through at once (default 1: none documented)`;
  },
  get options() {
    return {
      'service-url': { type: 'string' as const },
      'database-url': { type: 'string' as const },
      port: { type: 'string' as const },
      ...Object.fromEntries(EMULATORS.map((e) => [portOption(e.kind), { type: 'string' as const }])),
      host: { type: 'string' as const },
      seed: { type: 'string' as const },
      'latency-ms': { type: 'string' as const },
      'error-rate': { type: 'string' as const },
      'rate-limit-rate': { type: 'string' as const },
      'rate-limit': { type: 'string' as const },
      'rate-burst': { type: 'string' as const },
    };
  },
  async run(values) {
    const perMinute = numberOption(values, 'rate-limit', 600);
    const burst = numberOption(values, 'rate-burst', 1);
    const serviceUrl =
      typeof values['service-url'] === 'string' ? values['service-url'] : DEFAULT_SERVICE_URL;
    if (!URL.canParse(serviceUrl) || !/^https?:$/.test(new URL(serviceUrl).protocol))
      throw new Error(`--service-url must be an http(s) URL, got "${serviceUrl}"`);
    const sandboxes = await startSandboxes({
      host: typeof values.host === 'string' ? values.host : '127.0.0.1',
      port: numberOption(values, 'port', 4010),
      crmPorts: Object.fromEntries(
        EMULATORS.map((e) => [e.kind, numberOption(values, portOption(e.kind), e.port)]),
      ),
      serviceUrl,
      databaseUrl:
        typeof values['database-url'] === 'string'
          ? values['database-url']
          : process.env.DATABASE_URL || undefined,
      seed: numberOption(values, 'seed', 42),
      rateLimit: perMinute > 0 ? { ratePerSecond: perMinute / 60, burst: Math.max(1, burst) } : false,
      faults: {
        latencyMs: numberOption(values, 'latency-ms', 0),
        errorRate: numberOption(values, 'error-rate', 0),
        rateLimitRate: numberOption(values, 'rate-limit-rate', 0),
      },
    });
    // Listening for the stop signals before printing that we are ready: a caller that stops us as soon
    // as it reads the last line must not meet the default SIGTERM action (exit without closing).
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    process.stdout.write(sandboxes.lines.join('\n'));
    await stopped;
    await sandboxes.close();
    return 0;
  },
};
