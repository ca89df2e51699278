// What `npm run sandbox` starts and prints, apart from its options and signals (sandbox.ts): the
// provider's sandbox and every registered CRM emulator (emulators/registry.ts), each seeded with the
// same accounts and sending its events to the service, and the lines that tell a newcomer what to do.
import { startBuyerIntelSandbox } from '../buyer-intel/server.ts';
import type { RunningEmulator } from '../descriptor.ts';
import { EMULATORS } from '../registry.ts';
import { SANDBOX_ACCOUNTS, type SeededAccount } from './sandbox-accounts.ts';
import { SANDBOX_WEBHOOK_SECRET, serviceExports } from './sandbox-env.ts';

export interface SandboxOptions {
  host: string;
  /** The Buyer Intelligence sandbox's port (0: any free one). */
  port: number;
  /** Each CRM emulator's port by kind; absent: the emulator's own default. */
  crmPorts: Record<string, number>;
  serviceUrl: string;
  databaseUrl: string | undefined;
  seed: number;
  rateLimit: { ratePerSecond: number; burst: number } | false;
  faults: { latencyMs: number; errorRate: number; rateLimitRate: number };
}

/** The option that sets an emulator's port: `--hubspot-port` for kind `hubspot`. */
export const portOption = (kind: string) => `${kind}-port`;

export async function startSandboxes(
  options: SandboxOptions,
): Promise<{ lines: string[]; close(): Promise<void> }> {
  const started = performance.now();
  // When one cannot start (its port is taken), those already listening are closed, or they would keep
  // the process alive after the error line.
  const running: RunningEmulator[] = [];
  const closeAll = async () => {
    await Promise.all(running.map((r) => r.close()));
  };
  const start = async <T extends RunningEmulator>(
    name: string,
    option: string,
    launch: () => Promise<T>,
  ): Promise<T> => {
    try {
      const emulator = await launch();
      running.push(emulator);
      return emulator;
    } catch (err) {
      await closeAll();
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      throw new Error(`${name}: ${(err as Error).message}${inUse ? ` (choose another with ${option})` : ''}`);
    }
  };
  const { host } = options;
  const sandbox = await start('Buyer Intelligence sandbox', '--port', () =>
    startBuyerIntelSandbox({
      port: options.port,
      host,
      seed: options.seed,
      rateLimit: options.rateLimit,
      faults: options.faults,
      webhooks: { secret: SANDBOX_WEBHOOK_SECRET },
    }),
  );
  const crms: { emulator: (typeof EMULATORS)[number]; running: RunningEmulator; seeded: SeededAccount[] }[] =
    [];
  for (const emulator of EMULATORS) {
    const port = options.crmPorts[emulator.kind] ?? emulator.port;
    const one = await start(emulator.label, `--${portOption(emulator.kind)}`, () =>
      emulator.start({ port, host, sandbox: true }),
    );
    crms.push({ emulator, running: one, seeded: [] });
  }
  // Before anything else touches the emulators: their id counters then hand out the README's ids.
  for (const crm of crms)
    crm.seeded = SANDBOX_ACCOUNTS.map((account) => ({
      ...account,
      id: crm.emulator.createAccount(crm.running, account, { imported: true }),
    }));
  // Then every new account goes to the service, as a portal's webhook subscription or an org's Flow
  // with an Outbound Message would send it; the seeded ones stay for the dry runs.
  const targets = crms.map(
    (crm) => `${crm.emulator.label} to ${crm.emulator.sendEventsTo(crm.running, options.serviceUrl)}`,
  );
  const rowWebhooks = `${options.serviceUrl.replace(/\/+$/, '')}/webhooks/buyer-intel`;
  sandbox.webhooks.configure({ url: rowWebhooks });
  const service = await serviceExports(options.serviceUrl, options.databaseUrl);
  const ms = Math.round(performance.now() - started);
  const described = crms.map((crm) => ({
    ...crm,
    ...crm.emulator.describe(crm.running, crm.seeded[0]?.id ?? ''),
  }));
  const list = (seeded: SeededAccount[]) =>
    seeded.map(
      (a, i) =>
        `  ${i === 0 ? 'accounts:'.padEnd(11) : ' '.repeat(11)} ${a.id}  ${a.name}${a.state ? `, ${a.state}` : ''}`,
    );
  const [first] = described;
  const lines = [
    `Buyer Intelligence sandbox: ${sandbox.url}  (${sandbox.dataset.buyers.length} buyers, ${sandbox.dataset.bridges.length} bridges, ${sandbox.dataset.rows.length} signals; ready in ${ms} ms)`,
    `  token:            ${sandbox.token}`,
    `  restricted token: ${sandbox.restrictedToken}  (403 on private bridges)`,
    `  try: curl -H 'Authorization: Bearer ${sandbox.token}' '${sandbox.url}/api/external/buyer/quick/search?buyerName=Austin&buyerStateCode=Texas'`,
    ...described.flatMap((crm) => [crm.heading, ...list(crm.seeded), ...crm.examples.map((e) => `  ${e}`)]),
    `Events go to the service at ${options.serviceUrl}: ${[...targets, `provider row webhooks to ${rowWebhooks}`].join(', ')}`,
    '',
    'Point the service at them: paste these lines into a shell (or into .env):',
    `export BUYER_INTEL_BASE_URL=${sandbox.url}`,
    `export BUYER_INTEL_TOKEN=${sandbox.token}`,
    ...described.flatMap((crm) => crm.exports),
    ...service,
    ...described.flatMap((crm) => crm.emulator.serviceExports),
    '',
    'Then, for example:',
    ...described.flatMap((crm) => [
      `  npm run -s cli -- setup --crm ${crm.emulator.kind}    # once: our fields in the CRM`,
      `  npm run -s cli -- enrich --crm ${crm.emulator.kind} --account ${crm.seeded[0]?.id} --dry-run`,
    ]),
    `  npm run -s cli -- start    # then create ${first ? `an account in the ${first.emulator.label}` : 'an account'}: it is enriched`,
    'Ctrl-C stops them.',
    '',
  ];
  return { lines, close: closeAll };
}
