// Where the Salesforce quick action's Apex lives, and its classes, for the checks that read them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const FORCE_APP = join(ROOT, 'connectors/salesforce/force-app');

/** Every `.cls` under force-app, sorted. */
export const classFiles = readdirSync(FORCE_APP, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.cls'))
  .map((path) => join(FORCE_APP, path))
  .sort();
