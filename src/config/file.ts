// The optional config file (CONFIG_FILE, YAML or JSON): the mapping, thresholds, signal settings and
// schedules in one readable place. Each key stands for one environment variable, so both go through
// the same validation; a variable set in the environment wins over the file.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { CRMS } from '../../connectors/registry.ts';
import { FOLLOW_UP_FILE_KEYS } from '../follow-ups/settings.ts';

/** File key (dotted path) → environment variable. */
export const CONFIG_KEYS: Readonly<Record<string, string>> = {
  mapping: 'MAPPING_FILE',
  'match.acceptThreshold': 'MATCH_ACCEPT_THRESHOLD',
  'match.ambiguityMargin': 'MATCH_AMBIGUITY_MARGIN',
  'signals.filterTypes': 'SIGNALS_FILTER_TYPES',
  'signals.statuses': 'SIGNALS_STATUS',
  'signals.period': 'SIGNALS_PERIOD',
  'signals.sort': 'SIGNALS_SORT',
  'signals.maxNotesPerRun': 'SIGNALS_MAX_NOTES_PER_RUN',
  ...FOLLOW_UP_FILE_KEYS,
  'schedules.timeZone': 'SCHEDULE_TZ',
  'schedules.reenrich': 'REENRICH_CRON',
  'schedules.digest.perAccount': 'DIGEST_PER_ACCOUNT_CRON',
  'schedules.digest.orgWide': 'DIGEST_ORG_CRON',
  'schedules.digest.perOwner': 'DIGEST_OWNER_CRON',
  'schedules.digest.ownerChannels': 'DIGEST_OWNER_CHANNELS',
  'schedules.digest.ownerTenantChannels': 'DIGEST_OWNER_TENANT_CHANNELS',
  'schedules.digest.ownerMaxSignals': 'DIGEST_OWNER_MAX_SIGNALS',
  'schedules.digest.emailFrom': 'DIGEST_EMAIL_FROM',
  'schedules.digest.timeZone': 'DIGEST_TZ',
  'schedules.digest.lookbackDays': 'DIGEST_LOOKBACK_DAYS',
  'schedules.digest.perAccountMaxSignals': 'DIGEST_PER_ACCOUNT_MAX_SIGNALS',
  'schedules.digest.orgMaxSignals': 'DIGEST_ORG_MAX_SIGNALS',
  'schedules.digest.orgScope': 'DIGEST_ORG_SCOPE',
  'schedules.digest.orgTarget': 'DIGEST_ORG_TARGET',
  'schedules.digest.filterTypes': 'DIGEST_FILTER_TYPES',
  'schedules.digest.statuses': 'DIGEST_STATUSES',
  'worker.concurrency': 'WORKER_CONCURRENCY',
  'worker.attempts': 'ENRICH_ATTEMPTS',
  'worker.backfillAccountsPerJob': 'BACKFILL_ACCOUNTS_PER_JOB',
  'worker.writeBatchWaitMs': 'WRITE_BATCH_WAIT_MS',
  'worker.backfillBatchWaitMs': 'BACKFILL_BATCH_WAIT_MS',
  'worker.crmDailyHeadroom': 'CRM_DAILY_HEADROOM',
  'buyerIntel.ratePerSecond': 'BUYER_INTEL_RATE_PER_SECOND',
  'buyerIntel.burst': 'BUYER_INTEL_BURST',
  'buyerIntel.webhookBridgeIds': 'BUYER_INTEL_WEBHOOK_BRIDGE_IDS',
  logLevel: 'LOG_LEVEL',
  ...Object.assign({}, ...CRMS.map((crm) => crm.config.fileKeys ?? {})),
};

export interface ConfigFileValues {
  /** As environment variables (strings). */
  values: Record<string, string>;
  /** Environment variable → the file key it came from, for error messages. */
  origin: Record<string, string>;
  problems: string[];
}

function flatten(value: unknown, path: string, out: Record<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out);
  } else out[path] = value;
}

/** Reads the file; problems name the file and the key (or the line of a syntax error). */
export function readConfigFile(path: string): ConfigFileValues {
  const problems: string[] = [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return {
      values: {},
      origin: {},
      problems: [`CONFIG_FILE ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`],
    };
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) {
    for (const e of doc.errors) {
      const line = text.slice(0, e.pos[0]).split('\n').length;
      problems.push(`CONFIG_FILE ${path} line ${line}: ${e.message.split('\n')[0]}`);
    }
    return { values: {}, origin: {}, problems };
  }
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return { values: {}, origin: {}, problems };
  if (typeof data !== 'object' || Array.isArray(data))
    return { values: {}, origin: {}, problems: [`CONFIG_FILE ${path} must hold a mapping of settings`] };
  const flat: Record<string, unknown> = {};
  flatten(data, '', flat);
  const values: Record<string, string> = {};
  const origin: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) {
    const name = CONFIG_KEYS[key];
    if (!name) {
      problems.push(
        `CONFIG_FILE ${path}: unknown key ${key} (known: ${Object.keys(CONFIG_KEYS).join(', ')})`,
      );
      continue;
    }
    if (value === null || value === undefined) continue;
    const text = Array.isArray(value) ? value.map(String).join(',') : String(value);
    // A mapping path in the file is relative to the file.
    values[name] = key === 'mapping' ? resolve(dirname(path), text) : text;
    origin[name] = key;
  }
  return { values, origin, problems };
}
