// Adding a CRM is two folders and one line in each registry (CONTRIBUTING.md, "Add a CRM"): a
// throwaway CRM — the in-memory connector (connectors/memory/) and its emulator (emulators/memory/),
// registered as the test-only lines `registerCrm` and `registerEmulator` — is picked up by
// `npm run sandbox` (its port option, its accounts, its export line), by the compose check (its port lies
// in the range the sandbox service publishes), by the conformance setup (its reference), by startTestService (started, configured, enriched from
// its own event), and by `npm run demo` (its table), with no other edit.
import '../helpers/memory-crm.ts'; // first: registers the connector before the registry is read
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_CRM } from '../../connectors/memory/connector.ts';
import { memory } from '../../connectors/memory/index.ts';
import { sandboxCommand } from '../../emulators/cli/sandbox.ts';
import { SANDBOX_ACCOUNTS } from '../../emulators/cli/sandbox-accounts.ts';
import { startSandboxes } from '../../emulators/cli/sandbox-start.ts';
import { memoryEmulator, type RunningMemoryCrm } from '../../emulators/memory/index.ts';
import { EMULATORS, registerEmulator } from '../../emulators/registry.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { PROVIDER_SANDBOX_PORT, sandboxPortProblems, sandboxPortRange } from '../docker/compose-file.ts';
import { missingFromEnvExample } from '../helpers/env-example.ts';
import { finishedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';
import { referenceProblems, references } from '../setup/conformance.ts';

let unregister: () => void;
beforeAll(() => {
  // The emulator registry's one line, in this process only; the connector's is memory-crm.ts above.
  unregister = registerEmulator(memoryEmulator);
});
// Test files share their worker's modules: later files must not start it.
afterAll(() => unregister());

describe('a throwaway CRM added through its two folders and the two registry lines alone', () => {
  it('is an option and a section of `npm run sandbox`, seeded with the sandbox’s accounts', async () => {
    expect(EMULATORS.map((e) => e.kind)).toContain(MEMORY_CRM);
    expect(Object.keys(sandboxCommand.options)).toContain(`${MEMORY_CRM}-port`);
    expect(sandboxCommand.usage).toMatch(new RegExp(`--${MEMORY_CRM}-port <n> +In-memory CRM emulator port`));
    const sandboxes = await startSandboxes({
      host: '127.0.0.1',
      port: 0,
      crmPorts: Object.fromEntries(EMULATORS.map((e) => [e.kind, 0])),
      serviceUrl: 'http://127.0.0.1:3999',
      databaseUrl: 'postgres://nobody@127.0.0.1:1/none',
      seed: 42,
      rateLimit: false,
      faults: { latencyMs: 0, errorRate: 0, rateLimitRate: 0 },
    });
    try {
      const text = sandboxes.lines.join('\n');
      const workspace = /^export MEMORY_CRM_WORKSPACE=(\S+)$/m.exec(text)?.[1];
      expect(workspace).toBeTruthy();
      const heading = text.split('\n').findIndex((l) => l.startsWith('In-memory CRM emulator: memory://'));
      expect(heading).toBeGreaterThan(0);
      // Its accounts under its heading, as in every other CRM.
      const seeded = sandboxes.lines.slice(heading + 1, heading + 1 + SANDBOX_ACCOUNTS.length);
      expect(seeded.map((l) => l.replace(/^ {2}(accounts:)?\s+\S+ {2}/, ''))).toEqual(
        SANDBOX_ACCOUNTS.map((a) => `${a.name}${a.state ? `, ${a.state}` : ''}`),
      );
      expect(text).toContain(`enrich --crm ${MEMORY_CRM} --account acc`);
      // The built-in CRMs are still there beside it.
      for (const e of EMULATORS) expect(text).toContain(`${e.label}: `);
    } finally {
      await sandboxes.close();
    }
  }, 60_000);

  it('needs no edit of docker-compose.yml or emulators/Dockerfile: the published range holds its port', () => {
    expect(sandboxPortProblems(EMULATORS)).toEqual([]);
    // It listens on no port of its own (port 0: in-process); a CRM that listens takes a free port of the
    // range, as it would: the compose check passes with that too.
    const range = sandboxPortRange();
    if (!range) throw new Error('docker-compose.yml publishes no sandbox port range');
    const taken = new Set([PROVIDER_SANDBOX_PORT, ...EMULATORS.map((e) => e.port)]);
    const free = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i).find(
      (port) => !taken.has(port),
    );
    expect(free).toBeDefined();
    const listening = EMULATORS.map((e) => (e.kind === MEMORY_CRM ? { ...e, port: free ?? 0 } : e));
    expect(sandboxPortProblems(listening)).toEqual([]);
  });

  it('is one of the APIs the conformance setup checks, from its descriptor’s reference', () => {
    expect(references().map((r) => r.api)).toContain(memoryEmulator.conformance.api);
    expect(referenceProblems()).toEqual([]);
    // It answers no HTTP, so it names no document; one it named would have to be there and sourced.
    expect(referenceProblems([{ ...memoryEmulator.conformance, documents: ['memory-crm.json'] }])).toEqual([
      `${MEMORY_CRM}: its reference document memory-crm.json is not in test/fixtures/reference/`,
    ]);
  });

  it('would need its variables in .env.example as a product CRM (CONTRIBUTING’s docs step)', () => {
    // The check (defaults-agree.unit.test.ts) reads every registered product CRM's variables from its
    // connector; this test double is left out of .env.example, so its one variable is what it names.
    expect(missingFromEnvExample(Object.keys(memory.config.variables))).toEqual(['MEMORY_CRM_WORKSPACE']);
  });

  describe('startTestService', () => {
    let t: TestService;
    beforeAll(async () => {
      t = await startTestService({ name: 'throwaway-crm', fields: true, startWorker: true });
      await t.service.startChangeEvents();
    });
    afterAll(async () => {
      await t?.close();
    });

    it('starts its emulator, points the service at it and enriches an account created there', async () => {
      const crm = t.emulators[MEMORY_CRM] as RunningMemoryCrm | undefined;
      if (!crm) throw new Error('startTestService did not start the throwaway CRM');
      const id = memoryEmulator.createAccount(
        crm,
        { name: 'City of Austin', state: 'TX', website: 'https://austintexas.gov' },
        { imported: false },
      );
      const result = await finishedJob(t.service, id);
      expect(result.status).toBe('enriched');
      expect(crm.store.accounts.get(id)?.fields.get(P.buyerName)).toBe('City of Austin');
    });
  });

  it('has a table of its own in `npm run demo`', async () => {
    const printed: string[] = [];
    const { runDemo } = await import('../../emulators/cli/demo.ts');
    // Its CRM alone, to keep the file short; the other CRMs' tables are demo-output.test.ts's.
    const code = await runDemo({ out: (line = '') => printed.push(line), kinds: [MEMORY_CRM] });
    const text = printed.join('\n');
    const lines = text.split('\n');
    expect(code, text).toBe(0);
    const at = lines.indexOf(memoryEmulator.demoHeading);
    expect(at).toBeGreaterThan(0);
    const table = lines.slice(at + 1, lines.findIndex((l, i) => i > at && l.startsWith('└')) + 1).join('\n');
    expect(table).toMatch(/│ City of Austin, TX\s+│ City of Austin\s+│\s+1\.00 │ enriched/);
    expect(text).toMatch(/│ In-memory CRM\s+│\s+0 │ 0\.0 per account/);
  }, 120_000);
});
