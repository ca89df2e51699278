// Upstream calls as the emulators count them (CallStats: operation → status → count), split into what
// an account costs: reads, field writes, notes; plus the listing, the set-up and the rate-limited ones.
export type CallCounts = Record<string, Record<string, number>>;

export interface CallSplit {
  /** Admitted (not 429 / REQUEST_LIMIT_EXCEEDED) requests of each kind. */
  reads: number;
  writes: number;
  notes: number;
  listing: number;
  other: number;
  admitted: number;
  /** Refused for a rate limit: HubSpot 429, Salesforce 403 (REQUEST_LIMIT_EXCEEDED). */
  limited: number;
}

// HubSpot operations are named after the SDK (crm.companies.batchApi.update); Salesforce's after the
// REST resource (composite.sobjects.create). Salesforce notes are Tasks (or ContentNote + link) created
// in collections; follow-up tasks count as notes on both CRMs. A ContentVersion update (a note edited)
// would count as a write, and a backfill makes none.
const KINDS: { crm: 'hubspot' | 'salesforce'; kind: keyof CallSplit; re: RegExp }[] = [
  { crm: 'hubspot', kind: 'notes', re: /notes|tasks|associations\.v4\.basicApi\.create/ },
  { crm: 'hubspot', kind: 'writes', re: /^crm\.companies\.(basicApi|batchApi)\.update$/ },
  { crm: 'hubspot', kind: 'listing', re: /^crm\.companies\.(basicApi\.getPage|searchApi)/ },
  { crm: 'hubspot', kind: 'reads', re: /^crm\.(companies|associations)\./ },
  { crm: 'salesforce', kind: 'notes', re: /^(composite\.)?sobjects\.create$/ },
  { crm: 'salesforce', kind: 'writes', re: /^(composite\.)?sobjects\.update$/ },
  { crm: 'salesforce', kind: 'reads', re: /^(sobjects\.retrieve|query|queryMore)$/ },
];

export function splitCalls(crm: 'hubspot' | 'salesforce', counts: CallCounts): CallSplit {
  const out: CallSplit = { reads: 0, writes: 0, notes: 0, listing: 0, other: 0, admitted: 0, limited: 0 };
  const limitStatus = crm === 'hubspot' ? '429' : '403';
  for (const [op, byStatus] of Object.entries(counts)) {
    for (const [status, n] of Object.entries(byStatus)) {
      if (status === limitStatus) {
        out.limited += n;
        continue;
      }
      const kind = KINDS.find((k) => k.crm === crm && k.re.test(op))?.kind ?? 'other';
      out[kind] += n;
      out.admitted += n;
    }
  }
  return out;
}

export function totalCalls(counts: CallCounts, status?: string): number {
  let total = 0;
  for (const byStatus of Object.values(counts))
    for (const [s, n] of Object.entries(byStatus)) if (status === undefined || s === status) total += n;
  return total;
}
