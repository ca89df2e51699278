// How the card shows the service's values to a person (no JSX, unit-tested directly), and the history's
// changes as the "Last changes" section reads them. The Salesforce quick action says the same words
// (lwc/buyerIntelRefresh/buyerIntelFormat.js; test/ui/salesforce-metadata.unit.test.ts compares the two).
import type { HistoryChange, HistoryField, MatchStatus } from './buyer-intel-api.ts';

export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map((v) => formatValue(v)).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function formatConfidence(confidence: number | null): string {
  if (confidence === null || !Number.isFinite(confidence)) return '—';
  const pct = confidence <= 1 ? confidence * 100 : confidence;
  return `${Math.round(pct)}%`;
}

const STATUS_LABELS: Record<MatchStatus, string> = {
  enriched: 'Enriched',
  needs_review: 'Needs review',
  no_match: 'No match',
  error: 'Error',
  never: 'Not enriched yet',
};

export function statusLabel(status: MatchStatus): string {
  return STATUS_LABELS[status] ?? status;
}

export type TagVariant = 'default' | 'warning' | 'success' | 'error' | 'info';

export function statusVariant(status: MatchStatus): TagVariant {
  switch (status) {
    case 'enriched':
      return 'success';
    case 'needs_review':
      return 'warning';
    case 'error':
      return 'error';
    case 'no_match':
      return 'info';
    default:
      return 'default';
  }
}

export function formatDateTime(iso: string | null, locale = 'en-US', timeZone = 'UTC'): string {
  if (!iso) return 'Never';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(d);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

// ---- Last changes --------------------------------------------------------------------------

/** A change as the section shows it: when, which run, and one line per field or note. */
export interface ChangeView {
  key: string;
  when: string;
  by: string;
  /** `key`: the line's place in the change (two lines may read the same). */
  lines: { key: string; text: string }[];
}

/** Our provenance fields (the same names on every CRM): the match itself, not the buyer's data. */
const PROVENANCE_LABELS: Record<string, string> = {
  buyer_intel_buyer_name: 'Buyer',
  buyer_intel_status: 'Status',
  buyer_intel_duplicate_of: 'Duplicate of',
  buyer_intel_buyer_id: 'Buyer ID',
  buyer_intel_match_confidence: 'Match confidence',
  buyer_intel_match_reason: 'Match reason',
  buyer_intel_candidates: 'Candidates',
  buyer_intel_last_enriched_at: 'Last enriched',
};
/** Provenance that follows from the others or changes on every run: left out of a compact list. */
const QUIET_FIELDS = new Set([
  'buyer_intel_buyer_id',
  'buyer_intel_match_confidence',
  'buyer_intel_match_reason',
  'buyer_intel_candidates',
  'buyer_intel_last_enriched_at',
]);
const ACRONYMS = new Set(['id', 'url', 'fte', 'ai', 'nces', 'ipeds', 'lms', 'sis', 'hud', 'k12']);

/** A field's name in words: `buyer_intel_parent_buyer_id` → "Parent buyer ID". */
export function fieldLabel(field: string): string {
  const known = PROVENANCE_LABELS[field];
  if (known) return known;
  const words = field
    .replace(/__c$/i, '')
    .replace(/^buyer_?intel_/i, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (!words.length) return field;
  return words
    .map((w, i) => (ACRONYMS.has(w) ? w.toUpperCase() : i === 0 ? w[0]?.toUpperCase() + w.slice(1) : w))
    .join(' ');
}

const MAX_VALUE = 60;
const MAX_LINES = 6;

function shortValue(field: string, value: string | null): string {
  if (value === null || value === '') return '—';
  if (field === 'buyer_intel_status' && value in STATUS_LABELS) return STATUS_LABELS[value as MatchStatus];
  return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value;
}

/** The line of one field, or null when it says nothing a person needs (unchanged, quiet provenance). */
function fieldLine(f: HistoryField): { text: string; rank: number } | null {
  if (QUIET_FIELDS.has(f.field) && f.result !== 'error') return null;
  const label = fieldLabel(f.field);
  if (f.result === 'error')
    return { text: `${label}: not saved (${shortValue('', f.error ?? 'refused')})`, rank: 0 };
  if (f.result === 'not_sent') {
    const kept = shortValue(f.field, f.old);
    if (f.decision === 'blocked-edited-by-person' || f.decision === 'undo-kept-edit')
      return { text: `${label}: kept your value (${kept})`, rank: 1 };
    return { text: `${label}: kept the value already there (${kept})`, rank: 1 };
  }
  if (f.old === f.new) return null;
  // The match (buyer, status) before the buyer's data, of which an enrichment writes dozens.
  const rank = f.field in PROVENANCE_LABELS ? 2 : 4;
  return { text: `${label}: ${shortValue(f.field, f.old)} → ${shortValue(f.field, f.new)}`, rank };
}

/**
 * The lines of a change, what a person most needs first: a refused write, a value kept, the match
 * changed, a note, the buyer's data changed. At most six; the rest are counted.
 */
export function changeLines(change: Pick<HistoryChange, 'fields' | 'notes'>): string[] {
  const lines = [
    ...change.fields.map(fieldLine).filter((l) => l !== null),
    ...change.notes.map((n) => ({
      text: `${n.action === 'removed' ? 'Note removed' : 'Note added'}: ${shortValue('', n.title ?? 'untitled')}`,
      rank: 3,
    })),
  ]
    .sort((a, b) => a.rank - b.rank)
    .map((l) => l.text);
  if (lines.length === 0) return ['Match details updated'];
  if (lines.length <= MAX_LINES) return lines;
  const more = lines.length - (MAX_LINES - 1);
  return [...lines.slice(0, MAX_LINES - 1), `…and ${more} more`];
}

/**
 * Who a run's actor is, in words: the CRM user without the CRM and tenant the service prefixes
 * (`hubspot 4242 jane@example.com` → `jane@example.com`), never an API key's fingerprint.
 */
export function actorName(
  actor: string | null | undefined,
  where: Pick<HistoryChange, 'crm' | 'tenant'>,
): string | null {
  if (!actor) return null;
  if (actor.startsWith('key:')) return 'an API key';
  const cli = /^cli \((.*)\)$/.exec(actor);
  if (cli) return `${cli[1]} (command line)`;
  const words = actor.split(' ');
  if (words[0] === where.crm) words.shift();
  if (words.length > 1 && words[0] === where.tenant) words.shift();
  return words.join(' ') || null;
}

const REVIEW_WORDS: Record<string, string> = {
  reject: 'rejected',
  clear: 'rejection cleared',
  research: 'searched again',
  approve: 'approved',
};

const TRIGGER_WORDS: Record<string, string> = {
  webhook: 'after a record change',
  refresh: 'refresh',
  backfill: 'backfill',
  review: 'review',
  cli: 'command line',
  signal: 'real-time signal',
  digest: 'digest',
};

/** Which run made the change: "backfill of 2,002 accounts", "refresh", "confirmed by jane@example.com". */
export function runDescription(change: Pick<HistoryChange, 'run' | 'trigger' | 'crm' | 'tenant'>): string {
  const run = change.run;
  if (!run) return TRIGGER_WORDS[change.trigger ?? ''] ?? change.trigger ?? 'unknown';
  const who = actorName(run.actor, change);
  const by = (words: string) => (who ? `${words} by ${who}` : words);
  switch (run.kind) {
    case 'backfill': {
      const n = /^backfill of (\d+|every) account/.exec(run.label)?.[1];
      if (!n) return 'backfill';
      if (n === 'every') return 'backfill of every account';
      return `backfill of ${Number(n).toLocaleString('en-US')} account${n === '1' ? '' : 's'}`;
    }
    case 'refresh':
      return by('refresh');
    case 'confirm':
      return `confirmed by ${who ?? 'a person'}`;
    case 'review':
      return by(REVIEW_WORDS[run.label.split(' ')[0] ?? ''] ?? 'reviewed');
    case 'undo':
      return by('undo');
    case 'reenrich':
      return 'scheduled re-enrichment';
    case 'webhook':
      return TRIGGER_WORDS.webhook ?? 'webhook';
    default:
      return run.kind;
  }
}

export function changeView(change: HistoryChange, index: number): ChangeView {
  return {
    key: `${change.jobId ?? change.runId ?? 'change'}-${change.at}-${index}`,
    when: formatDateTime(change.at),
    by: runDescription(change),
    lines: changeLines(change).map((text, i) => ({ key: String(i), text })),
  };
}
