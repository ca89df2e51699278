// The defaults a newcomer reads — .env.example, config.example.yaml, docs/configuration.md — are the
// config schemas' own: each value written there must parse to what the schema gives when nothing is set.
// (They once said 100 jobs per worker and a 250-ms batch wait while the service took 200 and 0, and
// config.example.yaml once turned on the per-account digest the digest's own schema leaves off.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { memory } from '../../connectors/memory/index.ts';
import { CRMS } from '../../connectors/registry.ts';
import { coreSchema } from '../../src/config/env.ts';
import { readConfigFile } from '../../src/config/file.ts';
import { digestSettingsFromEnv } from '../../src/digest/settings.ts';
import { missingFromEnvExample } from '../helpers/env-example.ts';
import { productionSources } from '../helpers/source-files.ts';

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

/** What a variable parses to when written `raw`, and when not set; undefined when it has no default. */
type Both = (name: string, raw: string) => { written: unknown; unset: unknown } | undefined;

/** The schema's value for `raw`, and for nothing set; undefined when the variable has no default. */
const schemaBoth: Both = (name, raw) => {
  const field = SHAPE[name];
  if (!field) return undefined;
  const unset = field.safeParse(undefined);
  if (!unset.success || unset.data === undefined) return undefined;
  const written = field.safeParse(raw);
  return { written: written.success ? written.data : `unparseable: ${raw}`, unset: unset.data };
};

/**
 * The digest's variables (DIGEST_*, SLACK_*) are read by its own zod schema (src/digest/settings.ts)
 * into one settings object, not field by field: a variable's default is what the settings are
 * without it, every digest on and delivered beside it. Off, a digest would read none of its
 * variables and every value would "agree".
 */
const DIGESTS_ON: Readonly<Record<string, string>> = {
  DIGEST_PER_ACCOUNT_CRON: '0 8 * * 1',
  DIGEST_ORG_CRON: '0 8 * * 1',
  DIGEST_OWNER_CRON: '0 8 * * 1',
  DIGEST_ORG_TARGET: 'hubspot:123:456',
  DIGEST_SLACK_WEBHOOK_URL: 'https://hooks.example.com/digest',
  DIGEST_SMTP_URL: 'smtp://mail.example.com:587',
  DIGEST_EMAIL_FROM: 'digest@example.com',
  SLACK_BOT_TOKEN: 'xoxb-example',
};

/** The variables the digest reads: those its reader asks for with every digest on (none skipped). */
const DIGEST_VARIABLES: readonly string[] = (() => {
  const asked = new Set<string>();
  digestSettingsFromEnv(
    new Proxy(DIGESTS_ON, {
      get: (target, name) => {
        if (typeof name === 'string') asked.add(name);
        return target[name as string];
      },
    }),
  );
  return [...asked];
})();

const digestBoth: Both = (name, raw) => {
  if (!DIGEST_VARIABLES.includes(name)) return undefined;
  const settings = (env: Record<string, string>) => {
    try {
      return digestSettingsFromEnv(env);
    } catch {
      return undefined;
    }
  };
  const { [name]: _, ...others } = DIGESTS_ON;
  // Unset, it must be given (the SMTP URL of the email digest): no default to agree with.
  const unset = settings(others);
  if (unset === undefined) return undefined;
  return { written: settings({ ...others, [name]: raw }) ?? `unparseable: ${raw}`, unset };
};

/** Every module that reads variables with a zod schema of its own: the config's, and the digest's. */
const READERS: { names: readonly string[]; both: Both }[] = [
  { names: Object.keys(SHAPE), both: schemaBoth },
  { names: DIGEST_VARIABLES, both: digestBoth },
];
const VARIABLES = READERS.flatMap((reader) => reader.names);

const both: Both = (name, raw) => {
  for (const reader of READERS) if (reader.names.includes(name)) return reader.both(name, raw);
  return undefined;
};

/** The variables of `values` that have a default, each expected to hold it; returns their names. */
function expectDefaults(source: string, values: Record<string, string>): string[] {
  const checked: string[] = [];
  for (const [name, raw] of Object.entries(values)) {
    const pair = both(name, raw);
    if (!pair) continue;
    expect(pair.written, `${source}: ${name}=${raw}`).toEqual(pair.unset);
    checked.push(name);
  }
  return checked;
}

const digestOnes = (names: readonly string[]) => names.filter((name) => DIGEST_VARIABLES.includes(name));

describe('documented defaults agree with the config schemas', () => {
  it('.env.example: every variable given a value holds its default', () => {
    const values = Object.fromEntries(
      [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(.+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    // Where the example names the real service rather than a default (the provider's URL), it says so.
    delete values.BUYER_INTEL_BASE_URL;
    const checked = expectDefaults('.env.example', values);
    expect(checked.length).toBeGreaterThan(20);
    // The digest's time zone, look-back, signal counts, scope, channels and Slack API address.
    expect(digestOnes(checked).length).toBeGreaterThanOrEqual(8);
  });

  it('.env.example: names every variable of the schemas (it says it lists every one)', () => {
    expect(missingFromEnvExample(VARIABLES)).toEqual([]);
  });

  it('config.example.yaml: every key written holds its variable’s default', () => {
    const file = readConfigFile(fileURLToPath(new URL('config.example.yaml', ROOT)));
    expect(file.problems).toEqual([]);
    const checked = expectDefaults('config.example.yaml', file.values);
    expect(checked.length).toBeGreaterThan(10);
    // Its digest section: the two schedules it writes `off`, the time zone and the look-back.
    expect(digestOnes(checked)).toEqual(
      expect.arrayContaining([
        'DIGEST_PER_ACCOUNT_CRON',
        'DIGEST_ORG_CRON',
        'DIGEST_TZ',
        'DIGEST_LOOKBACK_DAYS',
      ]),
    );
  });

  it('docs/configuration.md: the default column of each table', () => {
    const rows = [...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)`[^|]*\| ([^|]+?) \|/gm)];
    const values = Object.fromEntries(rows.map((m) => [m[1] ?? '', (m[2] ?? '').replaceAll(',', '')]));
    expect(expectDefaults('docs/configuration.md', values)).toHaveLength(rows.length);
  });

  it('checks every variable a module reads: none is read outside the schemas above', () => {
    // A module that reads a variable with a schema of its own must be added to READERS, or its
    // examples go unchecked. The memory CRM is the tests' double (not in .env.example); USER is the
    // operator's login name, not a setting.
    const known = new Set([...VARIABLES, ...Object.keys(memory.config.variables), 'USER']);
    const read = productionSources().flatMap(({ path, source }) =>
      [...source.matchAll(/\b(?:process\.env|env|vars|source)\??\.([A-Z][A-Z0-9_]+)\b/g)].map(
        (m) => `${path}: ${m[1]}`,
      ),
    );
    expect(read.length).toBeGreaterThan(50);
    expect(read.filter((hit) => !known.has(hit.split(': ')[1] ?? ''))).toEqual([]);
    expect(DIGEST_VARIABLES).toHaveLength(19);
  });
});
