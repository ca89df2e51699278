// How the card shows the service's values to a person (no JSX, unit-tested directly).
import type { MatchStatus } from './buyer-intel-api.ts';

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
