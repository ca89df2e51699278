// Pure helpers for the buyerIntelRefresh component (no LWC imports, so vitest can load them).

export const TERMINAL_STATES = ['completed', 'failed'];

const STATUS_LABELS = {
  enriched: 'Enriched',
  needs_review: 'Needs review',
  no_match: 'No match',
  error: 'Error',
  never: 'Not enriched yet',
};

export function isTerminal(state) {
  return TERMINAL_STATES.includes(state);
}

export function statusLabel(status) {
  return STATUS_LABELS[status] ?? String(status ?? 'Unknown');
}

/** slds-badge theme class for a match status. */
export function statusBadgeClass(status) {
  switch (status) {
    case 'enriched':
      return 'slds-badge slds-theme_success';
    case 'needs_review':
      return 'slds-badge slds-theme_warning';
    case 'error':
      return 'slds-badge slds-theme_error';
    default:
      return 'slds-badge';
  }
}

export function formatConfidence(confidence) {
  if (confidence === null || confidence === undefined || !Number.isFinite(Number(confidence))) return '—';
  const n = Number(confidence);
  return `${Math.round(n <= 1 ? n * 100 : n)}%`;
}

export function formatValue(value) {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Field changes of a finished job as display rows: property, old → new. Unchanged/skipped fields are left out. */
export function diffRows(job) {
  const fields = job?.result?.fields ?? [];
  return fields
    .filter((f) => f.action !== 'skip' && f.action !== 'unchanged')
    .map((f) => ({
      key: `${f.property}`,
      property: f.property,
      from: formatValue(f.from),
      to: formatValue(f.to),
      change: `${formatValue(f.from)} → ${formatValue(f.to)}`,
      action: f.action,
    }));
}

export function createdNotes(job) {
  return job?.result?.notes?.created ?? [];
}

export function candidateRows(match) {
  return (match?.candidates ?? []).map((c) => ({
    ...c,
    label: `${c.name} (${c.type}, ${c.stateCode})`,
    scoreLabel: formatConfidence(c.score),
  }));
}

export function formatDateTime(iso) {
  if (!iso) return 'Never';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** Message of an Apex/LDS error (AuraHandledException arrives as body.message). */
export function reduceError(error) {
  if (!error) return 'Unknown error';
  if (Array.isArray(error.body)) return error.body.map((e) => e.message).join(', ');
  if (error.body && typeof error.body.message === 'string') return error.body.message;
  if (typeof error.message === 'string') return error.message;
  return String(error);
}
