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

/** The Buyer Intelligence sandbox's port (`npm run sandbox --port`'s default), inside the range too. */
export const PROVIDER_SANDBOX_PORT = 4010;

/** The one range the sandbox service publishes on the host's loopback (`127.0.0.1:<a>-<b>:<a>-<b>`). */
export function sandboxPortRange(): { from: number; to: number } | undefined {
  const ports = service('sandbox').ports ?? [];
  const m = ports.length === 1 ? /^127\.0\.0\.1:(\d+)-(\d+):\1-\2$/.exec(ports[0] ?? '') : null;
  return m ? { from: Number(m[1]), to: Number(m[2]) } : undefined;
}

/**
 * What keeps `emulators` from answering in `docker compose --profile sandbox` with no edit of
 * docker-compose.yml or emulators/Dockerfile: the published range, the image's EXPOSE of the same range,
 * and each emulator's port in it, none shared. Port 0: it listens on no port of its own (in-process).
 */
export function sandboxPortProblems(emulators: readonly { kind: string; port: number }[]): string[] {
  const range = sandboxPortRange();
  if (!range) return [`the sandbox service publishes no single 127.0.0.1 range: ${service('sandbox').ports}`];
  const problems: string[] = [];
  const exposed = readFileSync(join(ROOT, 'emulators/Dockerfile'), 'utf8').match(/^EXPOSE (.*)$/gm) ?? [];
  if (exposed.join('\n') !== `EXPOSE ${range.from}-${range.to}`)
    problems.push(`emulators/Dockerfile: ${exposed.join('; ')}, not EXPOSE ${range.from}-${range.to}`);
  const taken = new Map<number, string>([[PROVIDER_SANDBOX_PORT, 'the Buyer Intelligence sandbox']]);
  for (const e of [{ kind: 'the Buyer Intelligence sandbox', port: PROVIDER_SANDBOX_PORT }, ...emulators]) {
    if (e.port === 0) continue;
    if (e.port < range.from || e.port > range.to)
      problems.push(`${e.kind}: port ${e.port} is outside the published ${range.from}-${range.to}`);
    const other = taken.get(e.port);
    if (other && other !== e.kind) problems.push(`${e.kind}: port ${e.port} is ${other}'s too`);
    taken.set(e.port, e.kind);
  }
  return problems;
}
