// The defaults a newcomer reads — .env.example, config.example.yaml, docs/configuration.md — are the
// config schema's own: each value written there must parse to what the schema gives when nothing is set.
// (They once said 100 jobs per worker and a 250-ms batch wait while the service took 200 and 0.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { memory } from '../../connectors/memory/index.ts';
import { CRMS } from '../../connectors/registry.ts';
import { coreSchema } from '../../src/config/env.ts';
import { readConfigFile } from '../../src/config/file.ts';
import { missingFromEnvExample } from '../helpers/env-example.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

/**
 * Every variable of the one schema: the core's and each product CRM's. Files share their worker's
 * modules, so a file that ran earlier may have registered the in-memory test double; its variables
 * are no newcomer's and .env.example rightly leaves them out.
 */
const SHAPE: Record<string, z.ZodType> = Object.assign(
  {},
  coreSchema.shape,
  ...CRMS.filter((crm) => crm !== memory).map((crm) => crm.config.variables),
);

/** The schema's value for `raw`, and for nothing set; undefined when the variable has no default. */
function both(name: string, raw: string): { written: unknown; unset: unknown } | undefined {
  // A few settings are read by their own module (the digest's), not by the schema: not checked here.
  const field = SHAPE[name];
  if (!field) return undefined;
  const unset = field.safeParse(undefined);
  if (!unset.success || unset.data === undefined) return undefined;
  const written = field.safeParse(raw);
  return { written: written.success ? written.data : `unparseable: ${raw}`, unset: unset.data };
}

function expectDefaults(source: string, values: Record<string, string>): number {
  let checked = 0;
  for (const [name, raw] of Object.entries(values)) {
    const pair = both(name, raw);
    if (!pair) continue;
    expect(pair.written, `${source}: ${name}=${raw}`).toEqual(pair.unset);
    checked++;
  }
  return checked;
}

describe('documented defaults agree with the config schema', () => {
  it('.env.example: every variable given a value holds its default', () => {
    const values = Object.fromEntries(
      [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(.+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    // Where the example names the real service rather than a default (the provider's URL), it says so.
    delete values.BUYER_INTEL_BASE_URL;
    expect(expectDefaults('.env.example', values)).toBeGreaterThan(20);
  });

  it('.env.example: names every variable of the schema (it says it lists every one)', () => {
    expect(missingFromEnvExample(Object.keys(SHAPE))).toEqual([]);
  });

  it('config.example.yaml: every key written holds its variable’s default', () => {
    const file = readConfigFile(fileURLToPath(new URL('config.example.yaml', ROOT)));
    expect(file.problems).toEqual([]);
    expect(expectDefaults('config.example.yaml', file.values)).toBeGreaterThan(10);
  });

  it('docs/configuration.md: the default column of each table', () => {
    const rows = [...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)`[^|]*\| ([^|]+?) \|/gm)];
    const values = Object.fromEntries(rows.map((m) => [m[1] ?? '', (m[2] ?? '').replaceAll(',', '')]));
    expect(expectDefaults('docs/configuration.md', values)).toBe(rows.length);
  });
});
