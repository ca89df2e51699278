// Vitest's globalSetup (vitest.config.ts): the whole suite runs the HubSpot, Salesforce and Buyer
// Intelligence emulators in conformance mode (emulators/shared/conformance.ts). Every answer they send,
// errors included, and every request they accept is checked against the reference documents in
// test/fixtures/reference/ (emulators/README.md lists them); a divergence is a line in a file
// shared by every test worker (and any emulator process a test starts, through the environment), and the
// teardown fails the run listing them: method, path, status, schema errors.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'emulator-conformance-'));
  const file = join(dir, 'divergences.jsonl');
  writeFileSync(file, '');
  process.env.EMULATOR_CONFORMANCE_FILE = file;
  return () => {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    rmSync(dir, { recursive: true, force: true });
    if (lines.length === 0) return;
    const unique = [...new Set(lines)];
    const listed = unique.map((l) => {
      const d = JSON.parse(l) as {
        api: string;
        method?: string;
        path?: string;
        status?: number;
        errors?: string[];
        error?: string;
      };
      return d.error
        ? `  ${d.api}: ${d.error}`
        : `  ${d.api} ${d.method} ${d.path} → ${d.status}: ${(d.errors ?? []).join('; ')}`;
    });
    // Vitest reports an error thrown here but keeps the exit status of the tests: set it, then throw.
    process.exitCode = 1;
    throw new Error(
      `Emulator answers that diverge from the reference OpenAPI documents (${unique.length}):\n${listed.join('\n')}`,
    );
  };
}
