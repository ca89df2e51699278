// Size: the quick action's pure helpers in one module LWC and vitest both load: the match, the forms, and the last changes.
// Pure helpers for the buyerIntelRefresh component (no LWC imports, so vitest can load them). The "Last changes"
// words and paging are the HubSpot card's (connectors/hubspot/app/src/app/cards/buyer-intel-format.ts and
// history-logic.ts); test/ui/salesforce-metadata.unit.test.ts checks that both say the same.

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

/** What a rep without the permission set reads instead of Salesforce's words for it. */
export const NO_ACCESS =
  'You do not have access to Buyer intel. Ask your Salesforce admin to assign you the "Buyer Intel User" permission set.';

function errorText(error) {
  if (!error) return 'Unknown error';
  if (Array.isArray(error.body)) return error.body.map((e) => e.message).join(', ');
  if (error.body && typeof error.body.message === 'string') return error.body.message;
  if (typeof error.message === 'string') return error.message;
  return String(error);
}

/**
 * Message of an Apex/LDS error (AuraHandledException arrives as body.message). Salesforce refuses a user
 * without access to the controller before any of its code runs ("You do not have access to the Apex class
 * named …"): that one says which permission set to ask for.
 */
export function reduceError(error) {
  const text = errorText(error);
  return /do not have access to the Apex class/i.test(text) ? NO_ACCESS : text;
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

// ---- Last changes ----------------------------------------------------------------------------

/** Changes shown at first, and added by each "Show more". */
export const HISTORY_STEP = 5;

/** Our provenance fields (the same names on every CRM): the match itself, not the buyer's data. */
const PROVENANCE_LABELS = {
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
const QUIET_FIELDS = [
  'buyer_intel_buyer_id',
  'buyer_intel_match_confidence',
  'buyer_intel_match_reason',
  'buyer_intel_candidates',
  'buyer_intel_last_enriched_at',
];
const ACRONYMS = ['id', 'url', 'fte', 'ai', 'nces', 'ipeds', 'lms', 'sis', 'hud', 'k12'];
const MAX_VALUE = 60;
const MAX_LINES = 6;

/** A field's name in words: `buyer_intel_parent_buyer_id` → "Parent buyer ID". */
export function fieldLabel(field) {
  const known = PROVENANCE_LABELS[field];
  if (known) return known;
  const words = String(field)
    .replace(/__c$/i, '')
    .replace(/^buyer_?intel_/i, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (!words.length) return String(field);
  return words
    .map((w, i) => (ACRONYMS.includes(w) ? w.toUpperCase() : i === 0 ? w[0].toUpperCase() + w.slice(1) : w))
    .join(' ');
}

/** Whether a field is the match itself (buyer, status…) rather than the buyer's data. */
export function isMatchField(field) {
  return field in PROVENANCE_LABELS;
}

/** Provenance that follows from the others or changes on every run: left out of a compact list. */
export function isQuietField(field) {
  return QUIET_FIELDS.includes(field);
}

/** A value as a line shows it: a status in words, a long text cut, nothing as "—". */
export function shortValue(field, value) {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'buyer_intel_status' && STATUS_LABELS[value]) return STATUS_LABELS[value];
  const text = String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function fieldLine(f) {
  if (QUIET_FIELDS.includes(f.field) && f.result !== 'error') return null;
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

/** A change's lines: a refused write, a value kept, the match changed, a note, the buyer's data; at most six. */
export function changeLines(change) {
  const lines = [
    ...(change?.fields ?? []).map(fieldLine).filter((l) => l !== null),
    ...(change?.notes ?? []).map((n) => ({
      text: `${n.action === 'removed' ? 'Note removed' : 'Note added'}: ${shortValue('', n.title ?? 'untitled')}`,
      rank: 3,
    })),
  ]
    .sort((a, b) => a.rank - b.rank)
    .map((l) => l.text);
  if (lines.length === 0) return ['Match details updated'];
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES - 1), `…and ${lines.length - (MAX_LINES - 1)} more`];
}

/** Who a run's actor is in words: the CRM user without the CRM and tenant, never an API key's fingerprint. */
export function actorName(actor, where) {
  if (!actor) return null;
  if (actor.startsWith('key:')) return 'an API key';
  const cli = /^cli \((.*)\)$/.exec(actor);
  if (cli) return `${cli[1]} (command line)`;
  const words = actor.split(' ');
  if (words[0] === where?.crm) words.shift();
  if (words.length > 1 && words[0] === where?.tenant) words.shift();
  return words.join(' ') || null;
}

const REVIEW_WORDS = {
  reject: 'rejected',
  clear: 'rejection cleared',
  research: 'searched again',
  approve: 'approved',
};

const TRIGGER_WORDS = {
  webhook: 'after a record change',
  refresh: 'refresh',
  backfill: 'backfill',
  review: 'review',
  cli: 'command line',
  signal: 'real-time signal',
  digest: 'digest',
};

/** Which run made the change: "backfill of 2,002 accounts", "refresh", "confirmed by jane@acme.example". */
export function runDescription(change) {
  const run = change?.run;
  if (!run) return TRIGGER_WORDS[change?.trigger ?? ''] ?? change?.trigger ?? 'unknown';
  const who = actorName(run.actor, change);
  const by = (words) => (who ? `${words} by ${who}` : words);
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
      return by(REVIEW_WORDS[run.label.split(' ')[0]] ?? 'reviewed');
    case 'undo':
      return by('undo');
    case 'reenrich':
      return 'scheduled re-enrichment';
    case 'webhook':
      return TRIGGER_WORDS.webhook;
    default:
      return run.kind;
  }
}

/** A change as the panel shows it: when · which run, then one line per field or note (keyed for for:each). */
export function changeView(change, index) {
  return {
    key: `${change.jobId ?? change.runId ?? 'change'}-${change.at}-${index}`,
    heading: `${formatDateTime(change.at)} · ${runDescription(change)}`,
    lines: changeLines(change).map((text, i) => ({ key: String(i), text })),
  };
}

/** What the panel says when the service's answer is not a history page. */
export const UNREADABLE_HISTORY = 'The buyer intel service sent a history the panel cannot read.';

/**
 * A page as the panel reads it, or null when the answer is none. Apex hands the service's JSON over as
 * an untyped map, in which a null `next` may arrive missing: the last page must still read as the last.
 */
export function historyPageOf(raw) {
  if (!raw || typeof raw !== 'object' || !Array.isArray(raw.changes)) return null;
  return { changes: raw.changes, next: typeof raw.next === 'string' && raw.next ? raw.next : null };
}

/** The panel's history: pages read, how many changes shown, what is being read, and the read's number. */
export function initialHistoryState() {
  return {
    changes: [],
    next: null,
    shown: HISTORY_STEP,
    loading: 'first',
    error: null,
    loaded: false,
    request: 0,
  };
}

const sameChange = (a, b) =>
  a.accountId === b.accountId && a.runId === b.runId && a.jobId === b.jobId && a.trigger === b.trigger;

/** The older page's changes after the ones read, its first joined to the last when it continues that job. */
export function appendPage(changes, older) {
  const last = changes[changes.length - 1];
  const [first, ...rest] = older;
  if (!last || !first || !sameChange(last, first)) return [...changes, ...older];
  const joined = {
    ...last,
    fields: [...last.fields, ...first.fields],
    notes: [...last.notes, ...first.notes],
  };
  return [...changes.slice(0, -1), joined, ...rest];
}

/** The changes known whole: all but the last while an older page may continue it. */
export function completeChanges(state) {
  return state.next === null ? state.changes : state.changes.slice(0, -1);
}

export function visibleChanges(state) {
  return completeChanges(state).slice(0, state.shown);
}

export function hasMoreChanges(state) {
  return completeChanges(state).length > state.shown || state.next !== null;
}

/** The cursor of the page to read now: when fewer whole changes are read than are to be shown. */
export function pageWanted(state) {
  if (!state.loaded || state.loading !== null || state.error !== null || state.next === null) return null;
  return completeChanges(state).length < state.shown ? state.next : null;
}

function answers(state, e) {
  if (e.request !== state.request) return false;
  return e.after === null ? state.loading === 'first' : state.loading === 'more' && state.next === e.after;
}

const reloadHistory = (state) => ({
  ...state,
  shown: HISTORY_STEP,
  loading: 'first',
  error: null,
  request: state.request + 1,
});

/** The same events as the HubSpot card's: reload, show_more, retry, fetching, page, failed. */
export function historyReducer(state, event) {
  switch (event.type) {
    case 'reload':
      return reloadHistory(state);
    case 'show_more':
      return hasMoreChanges(state) ? { ...state, shown: state.shown + HISTORY_STEP, error: null } : state;
    case 'retry':
      return state.loaded ? { ...state, error: null } : reloadHistory(state);
    case 'fetching':
      return state.loading === null && state.next === event.after ? { ...state, loading: 'more' } : state;
    case 'page': {
      if (!answers(state, event)) return state;
      const changes =
        event.after === null ? event.page.changes : appendPage(state.changes, event.page.changes);
      return { ...state, changes, next: event.page.next, loading: null, error: null, loaded: true };
    }
    case 'failed':
      // A failed read of the newest page leaves what was shown, but not as the newest: a retry reads it.
      return answers(state, event)
        ? {
            ...state,
            loading: null,
            error: event.message,
            loaded: event.after === null ? false : state.loaded,
          }
        : state;
    default:
      return state;
  }
}
