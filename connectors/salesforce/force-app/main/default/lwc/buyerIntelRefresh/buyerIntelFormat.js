// Pure helpers for the buyerIntelRefresh component (no LWC imports, so vitest can load them).

export const TERMINAL_STATES = ['completed', 'failed'];

// The service's bounds on a decision's input (src/review/schemas.ts), also the inputs' max-length.
export const MAX_REASON = 500;
export const MAX_NAME = 300;
export const MAX_STATE = 64;

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

/**
 * Rejected ("not a public buyer"): the service says so with `pinned`; an older service without that
 * field keeps it `no_match` with the words "Rejected by …" until cleared.
 */
export function isRejected(match) {
  if (typeof match?.pinned === 'boolean') return match.pinned;
  return match?.status === 'no_match' && /^Rejected by /.test(match?.explanation ?? '');
}

/** Where a re-search starts: the Account's own name and billing state (read by the controller). */
export function researchDefaults(match) {
  return {
    name: match?.accountName ?? match?.name ?? '',
    state: match?.billingState ?? match?.state ?? '',
  };
}

/** The reject form's reason as the controller takes it, or the problem to show instead. */
export function rejectInput(reason) {
  const text = String(reason ?? '').trim();
  if (!text) return { error: 'Give the reason this account is not a public buyer.' };
  if (text.length > MAX_REASON) return { error: `The reason is at most ${MAX_REASON} characters.` };
  return { reason: text };
}

/** The re-search form's name and state (null when left blank), or the problem to show instead. */
export function researchInput(name, state) {
  const n = String(name ?? '').trim();
  const s = String(state ?? '').trim();
  if (!n && !s) return { error: 'Give a name or a state to search with.' };
  if (n.length > MAX_NAME) return { error: `The name is at most ${MAX_NAME} characters.` };
  if (s.length > MAX_STATE) return { error: `The state is at most ${MAX_STATE} characters.` };
  return { name: n || null, state: s || null };
}

const JOB_TITLES = {
  refresh: { busy: 'Refreshing…', done: 'Refresh complete', failed: 'Refresh failed' },
  confirm: { busy: 'Confirming buyer…', done: 'Buyer confirmed', failed: 'Confirming failed' },
  reject: { busy: 'Rejecting…', done: 'Rejected: not a public buyer', failed: 'Rejecting failed' },
  clear: { busy: 'Clearing the rejection…', done: 'Rejection cleared', failed: 'Clearing failed' },
  research: { busy: 'Searching again…', done: 'Search complete', failed: 'Search failed' },
};

const GENERIC_TITLES = { busy: 'Working…', done: 'Done', failed: 'Failed' };

/** What the panel says while an action's job runs, when it is done, and when it failed. */
export function jobTitles(action) {
  return JOB_TITLES[action] ?? GENERIC_TITLES;
}
