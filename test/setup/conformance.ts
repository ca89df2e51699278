// Vitest's globalSetup (vitest.config.ts): the whole suite runs the HubSpot, Salesforce and Buyer
// Intelligence emulators in conformance mode (emulators/shared/conformance.ts). Every answer they send,
// errors and body-less ones included, and every request they answer is checked against the reference
// documents in test/fixtures/reference/ and the sourced rules beside them (emulators/README.md); a
// divergence is a line in a file shared by every test worker and every emulator process a test starts
// (through the environment), and each exchange a line in a sibling file. The teardown prints what share
// of answers and requests the check saw and validated, per API — every registered emulator's
// (emulators/registry.ts), so an API this run never reached says so — and fails the run listing the
// divergences, or when any answer went unchecked (below 100 %). Before the run it checks that each
// registered emulator's reference documents are there and sourced (test/fixtures/reference/SOURCES.md).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUYER_INTEL_REFERENCE } from '../../emulators/buyer-intel/reference.ts';
import type { ConformanceReference } from '../../emulators/descriptor.ts';
import { EMULATORS } from '../../emulators/registry.ts';
import { type ExchangeLine, exchangesFile } from '../../emulators/shared/conformance.ts';

const REFERENCE_DIR = new URL('../fixtures/reference/', import.meta.url);

/** The APIs checked: the provider's and each registered CRM emulator's. */
export const references = (): ConformanceReference[] => [
  BUYER_INTEL_REFERENCE,
  ...EMULATORS.map((e) => e.conformance),
];

/** What is wrong with the registered references: a document missing, or without its row in SOURCES.md. */
export function referenceProblems(list: readonly ConformanceReference[] = references()): string[] {
  const sources = readFileSync(new URL('SOURCES.md', REFERENCE_DIR), 'utf8');
  return list.flatMap((r) =>
    r.documents.flatMap((doc) => {
      if (!existsSync(new URL(doc, REFERENCE_DIR)))
        return [`${r.api}: its reference document ${doc} is not in test/fixtures/reference/`];
      return sources.includes(`\`${doc}\``) ? [] : [`${r.api}: ${doc} has no row in SOURCES.md`];
    }),
  );
}

const readLines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const percent = (n: number, of: number) => (of === 0 ? '—' : `${((100 * n) / of).toFixed(1)} %`);
const listed = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k.replace(/^(excluded|unchecked): /, '')} ${n}`)
    .join(', ');

interface Tally {
  answers: number;
  answersChecked: number;
  answersExcluded: Map<string, number>;
  answersUnchecked: Map<string, number>;
  requests: number;
  requestsChecked: Map<string, number>;
  requestsUnchecked: Map<string, number>;
}

/** The coverage lines to print, and the answers that went unchecked. */
function coverage(lines: readonly ExchangeLine[]): { report: string[]; unchecked: string[] } {
  const tallies = new Map<string, Tally>();
  const unchecked: string[] = [];
  for (const x of lines) {
    let t = tallies.get(x.api);
    if (!t) {
      t = {
        answers: 0,
        answersChecked: 0,
        answersExcluded: new Map(),
        answersUnchecked: new Map(),
        requests: 0,
        requestsChecked: new Map(),
        requestsUnchecked: new Map(),
      };
      tallies.set(x.api, t);
    }
    t.answers++;
    if (x.answer === 'checked') t.answersChecked++;
    else if (x.answer.startsWith('excluded')) count(t.answersExcluded, x.answer);
    else {
      count(t.answersUnchecked, x.answer);
      unchecked.push(`  ${x.api} ${x.method} ${x.route} → ${x.status}: ${x.answer}`);
    }
    if (x.request.startsWith('excluded')) continue;
    t.requests++;
    if (x.request.startsWith('unchecked'))
      count(t.requestsUnchecked, `${x.request} (${x.method} ${x.route})`);
    else count(t.requestsChecked, x.request);
  }
  const unseen = references()
    .filter((r) => r.documents.length && !tallies.has(r.api))
    .map((r) => `  ${r.api}: no answers in this run`);
  const report = [...tallies].flatMap(([api, t]) => {
    const inScope = t.answers - [...t.answersExcluded.values()].reduce((a, b) => a + b, 0);
    const requestsChecked = [...t.requestsChecked.values()].reduce((a, b) => a + b, 0);
    return [
      `  ${api}: ${t.answers} answers seen, ${t.answersChecked} validated (${percent(t.answersChecked, inScope)} of ${inScope} in scope)` +
        (t.answersExcluded.size ? `; not in scope: ${listed(t.answersExcluded)}` : '') +
        (t.answersUnchecked.size ? `; UNCHECKED: ${listed(t.answersUnchecked)}` : ''),
      `  ${' '.repeat(api.length)}  ${t.requests} requests seen, ${requestsChecked} validated (${percent(requestsChecked, t.requests)}: ${listed(t.requestsChecked)})` +
        (t.requestsUnchecked.size ? `; not validated: ${listed(t.requestsUnchecked)}` : ''),
    ];
  });
  return { report: tallies.size ? [...report, ...unseen] : [], unchecked };
}

export default function setup(): () => void {
  const missing = referenceProblems();
  if (missing.length)
    throw new Error(
      `Emulator reference documents (emulators/<crm>/reference.ts):\n  ${missing.join('\n  ')}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'emulator-conformance-'));
  const file = join(dir, 'divergences.jsonl');
  writeFileSync(file, '');
  process.env.EMULATOR_CONFORMANCE_FILE = file;
  return () => {
    const lines = readLines(file);
    const exchanges = readLines(exchangesFile(file)).map((l) => JSON.parse(l) as ExchangeLine);
    rmSync(dir, { recursive: true, force: true });
    const { report, unchecked } = coverage(exchanges);
    if (report.length)
      process.stdout.write(
        `\nEmulator conformance: what the check saw and validated, every process of the run\n${report.join('\n')}\n`,
      );
    const unique = [...new Set(lines)];
    const problems: string[] = [];
    if (unique.length) {
      const divergences = unique.map((l) => {
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
      problems.push(
        `Emulator answers that diverge from the reference OpenAPI documents (${unique.length}):\n${divergences.join('\n')}`,
      );
    }
    if (unchecked.length) {
      const shown = [...new Set(unchecked)];
      problems.push(
        `Emulator answers the conformance check could not validate (${unchecked.length}; below 100 %):\n${shown.slice(0, 50).join('\n')}`,
      );
    }
    if (problems.length === 0) return;
    // Vitest reports an error thrown here but keeps the exit status of the tests: set it, then throw.
    process.exitCode = 1;
    throw new Error(problems.join('\n'));
  };
}
