// What the reliability tests share: buyers that resolve unambiguously, a company's note keys as the
// HubSpot emulator stores them, signed HubSpot webhook deliveries, the environment of a CLI child
// process, bounded polling, and a worker process's start.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { extractNoteKeys } from '../../connectors/hubspot/note-html.ts';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { eventually } from './poll.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

/** The reliability tests' argument order (what first) over the one poll, eventually(). */
export function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  return eventually(check, what, { timeoutMs, intervalMs: everyMs }) as Promise<T>;
}

/**
 * `n` buyers whose name is unique in the data set and that have a web site, so that a company named
 * like them, in their state, with their domain, resolves to them and nothing else.
 */
export function distinctBuyers(bi: RunningBuyerIntelSandbox, n: number, skip = 0): SandboxBuyer[] {
  const count = new Map<string, number>();
  for (const b of bi.dataset.buyers)
    count.set(b.name.toLowerCase(), (count.get(b.name.toLowerCase()) ?? 0) + 1);
  const picked = bi.dataset.buyers.filter(
    (b) => count.get(b.name.toLowerCase()) === 1 && b.url && /^(City|County|Town) of |County$/.test(b.name),
  );
  if (picked.length < n + skip) throw new Error(`only ${picked.length} distinct buyers`);
  return picked.slice(skip, skip + n);
}

export const domainOf = (b: SandboxBuyer): string =>
  b.url ? new URL(b.url).hostname.replace(/^www\./, '') : '';

/** The company's properties a person would type for this buyer. */
export const companyFor = (b: SandboxBuyer): Record<string, string> => ({
  name: b.name,
  state: b.stateCode,
  domain: domainOf(b),
});

/** The dedupe keys of every note on a HubSpot company, one entry per note (duplicates kept). */
export function noteKeysOf(hs: RunningHubSpotSandbox, companyId: string): string[] {
  return hs.store.notesOf(companyId).flatMap((n) => extractNoteKeys(n.values.get('hs_note_body')));
}

/** The keys that appear on more than one note. */
export const duplicates = (keys: string[]): string[] =>
  [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))].sort();

/** POSTs a HubSpot-signed webhook body (v3) to the receiver; resolves with the status (0 = no answer). */
export async function postHubSpotWebhook(
  url: string,
  secret: string,
  body: string,
  options: { timestamp?: number; headers?: Record<string, string>; signature?: string } = {},
): Promise<number> {
  const timestamp = String(options.timestamp ?? Date.now());
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-HubSpot-Request-Timestamp': timestamp,
        'X-HubSpot-Signature-v3':
          options.signature ?? hubspotSignatureV3(secret, 'POST', url, body, timestamp),
        ...options.headers,
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** A company.creation event as HubSpot sends it. */
export function creationEvent(hs: RunningHubSpotSandbox, objectId: string | number, eventId: number) {
  return {
    eventId,
    subscriptionId: 1,
    portalId: hs.portalId,
    appId: hs.appId,
    occurredAt: Date.now(),
    subscriptionType: 'company.creation',
    attemptNumber: 0,
    objectId: Number(objectId),
    changeFlag: 'CREATED',
    changeSource: 'CRM_UI',
  };
}

/** The environment of a CLI process pointed at the emulators (nothing inherited but PATH). */
export function cliEnv(
  bi: RunningBuyerIntelSandbox,
  hs: RunningHubSpotSandbox,
  prefix: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    REDIS_URL,
    REDIS_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    BUYER_INTEL_BASE_URL: bi.url,
    BUYER_INTEL_TOKEN: bi.token,
    BUYER_INTEL_RATE_PER_SECOND: '200',
    BUYER_INTEL_BURST: '200',
    HUBSPOT_BASE_PATH: hs.url,
    HUBSPOT_ACCESS_TOKEN: hs.accessToken,
    HUBSPOT_PORTAL_ID: String(hs.portalId),
    HUBSPOT_CLIENT_SECRET: hs.clientSecret,
    HUBSPOT_APP_ID: String(hs.appId),
    API_KEYS: 'k'.repeat(32),
    REENRICH_CRON: 'off',
    ...extra,
  };
}

/** A TCP port nobody listens on right now. */
export { freePort } from './ports.ts';

/**
 * Resolves with the worker process once its log says `started` (it logs at info); rejects with what it
 * printed when it exits first or stays silent for `timeoutMs`.
 */
export function untilStarted(
  proc: ChildProcessWithoutNullStreams,
  name = 'worker',
  timeoutMs = 30_000,
): Promise<ChildProcessWithoutNullStreams> {
  let stderr = '';
  let started = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${stderr}`)), timeoutMs);
    proc.stderr.on('data', (chunk: Buffer) => {
      if (started) return;
      stderr = (stderr + chunk.toString()).slice(-4_000);
      if (stderr.includes('"msg":"started"')) {
        started = true;
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${name} exited with ${code} before starting:\n${stderr}`));
    });
  });
}
