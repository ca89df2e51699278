// The CRM fields that record the match itself (which buyer, how sure, why), written on every enrichment
// whatever the mapping. They live apart from field-definitions.ts so that the mapping schema can refuse
// a mapped property that would collide with one of them without an import cycle.

/** Our provenance fields, by role → CRM field name. The same for every mapping and every CRM. */
export const PROVENANCE_FIELDS = {
  /** The matched buyer's id (a person may pin an account to a buyer by setting it). */
  buyerId: 'buyer_intel_buyer_id',
  buyerName: 'buyer_intel_buyer_name',
  /** 0..1. */
  matchConfidence: 'buyer_intel_match_confidence',
  /** enriched | needs_review | no_match | error. */
  status: 'buyer_intel_status',
  /** Why the account matched (or did not), in a sentence or two. */
  matchReason: 'buyer_intel_match_reason',
  /** The candidate buyers when the match needs review, one a line. */
  candidates: 'buyer_intel_candidates',
  /** ISO-8601 date-time of the last enrichment that wrote anything. */
  lastEnrichedAt: 'buyer_intel_last_enriched_at',
  /** Set on the other accounts of a duplicates group: the CRM id of the account recommended to keep. */
  duplicateOf: 'buyer_intel_duplicate_of',
} as const;

export type ProvenanceRole = keyof typeof PROVENANCE_FIELDS;
export type ProvenanceField = (typeof PROVENANCE_FIELDS)[ProvenanceRole];

export const PROVENANCE_FIELD_NAMES: readonly ProvenanceField[] = Object.values(PROVENANCE_FIELDS);

export const ENRICH_STATUSES = ['enriched', 'needs_review', 'no_match', 'error'] as const;
export type EnrichmentStatus = (typeof ENRICH_STATUSES)[number];

export const ENRICH_STATUS_LABELS: Record<EnrichmentStatus, string> = {
  enriched: 'Enriched',
  needs_review: 'Needs review',
  no_match: 'No match',
  error: 'Error',
};
