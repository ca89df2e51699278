// What .env.example leaves out of a list of variables: it says it lists every variable the service reads,
// so each product CRM's (its connector's config.variables) must be there, as a line `NAME=` or `# NAME=`
// (test/config/defaults-agree.unit.test.ts holds the registered CRMs to it; CONTRIBUTING.md, "Add a CRM").
import { readFileSync } from 'node:fs';

const EXAMPLE = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

export const missingFromEnvExample = (names: readonly string[]): string[] =>
  names.filter((name) => !new RegExp(`^#?\\s*${name}=`, 'm').test(EXAMPLE));
