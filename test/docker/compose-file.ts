// docker-compose.yml read as data, for the tests of test/docker/ (a helper: no test of its own).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');

export interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: string[];
  volumes?: string[];
  container_name?: string;
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  profiles?: string[];
  stop_grace_period?: string;
  restart?: string;
  networks?: string[];
  logging?: { driver?: string; options?: Record<string, string> };
  deploy?: { resources?: { limits?: { memory?: string; cpus?: string } } };
}
export const COMPOSE_TEXT = readFileSync(COMPOSE_FILE, 'utf8');
export const compose = parse(COMPOSE_TEXT, { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  networks: Record<string, { internal?: boolean } | null>;
};
export const service = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`no service ${name}`);
  return s;
};

/** What compose passes that nobody may know: each must be set in .env, none has a default. */
export const SECRETS = [
  'POSTGRES_PASSWORD',
  'BUYER_INTEL_TOKEN',
  'TOKEN_ENCRYPTION_KEY',
  'API_KEYS',
  'METRICS_TOKEN',
];
