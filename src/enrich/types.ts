// What the pipeline takes (its dependencies, the options of one enrichment) and what it gives back: the
// shapes every step, the enrich job, the store's record of an outcome and the metrics share.

import type { AccountRef, CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { ReviewInstruction } from '../../queues/review-instruction.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { FollowUpSettings } from '../follow-ups/settings.ts';
import type { FitNote } from '../map/fit.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import type { FieldChange } from '../map/plan.ts';
import type { LearnedRule, NameForm } from '../resolve/learned.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { BatchedWrites } from '../write/batched-writes.ts';
import type { WriteOrigin } from '../write/journal.ts';
import type { Ledgers } from '../write/ledgers.ts';
import type { CrmReads } from './crm-reads.ts';
import type { RunSignals, SignalSettings } from './run-signals.ts';

export interface PipelineDeps {
  buyerIntel: Pick<BuyerIntelClient, 'getBuyerAttributesBulk' | 'listRecentBuyerSignals'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  /** Reads the account (mapped and provenance fields, and its ids); batched across jobs (crm-reads.ts). */
  readAccount: CrmReads['readAccount'];
  /** The keys of the notes on the account, as the CRM holds them; batched across jobs (crm-reads.ts). */
  noteKeysOf: CrmReads['noteKeysOf'];
  /**
   * Set where accounts are read together (a backfill chunk): an account our records do not answer for
   * in full has its note keys asked for with its read, in that step's batch, instead of in a step of
   * their own after the Buyer Intelligence calls. Unset, they are asked for only when needed (an account
   * without a match needs none).
   */
  noteKeysWithRead?: CrmReads['noteKeysOf'];
  resolver: Pick<Resolver, 'resolve'>;
  /** The rules a person's decisions taught for a tenant's name form (src/resolve/learned.ts); unset, none. */
  learned?: (scope: { crm: string; tenant: string }, form: NameForm) => Promise<LearnedRule[]>;
  /** The mapping a job uses when `inForce` is unset (tests, a one-off with the file's). */
  mapping: Mapping;
  /**
   * The mapping and match thresholds in force at the job's start (a version saved in the admin
   * console changes them without a restart); the thresholds pick the resolver through `resolverFor`.
   */
  inForce?: () => Promise<{ mapping: Mapping; thresholds: MatchThresholds }>;
  resolverFor?: (thresholds: MatchThresholds) => Pick<Resolver, 'resolve'>;
  ledgers: Ledgers;
  /** Writes one account's fields; batched across jobs (and recorded, with its context) by the caller. */
  writeAccount: BatchedWrites['writeAccount'];
  /** Creates one note; batched across jobs (and recorded, with its origin) by the caller. */
  createNote: BatchedWrites['createNote'];
  /**
   * Resolves once the tenant has our fields, making them where they are not known to be there (a
   * stored tenant's first write: src/write/our-fields.ts); unset, the tenant is taken to have them.
   */
  ourFieldsReady?: (crm: CrmKind, tenant: string) => Promise<void> | undefined;
  signals: SignalSettings;
  /** A run's signals from the org-wide feed, where the run chose it (run-signals.ts). */
  runSignals?: RunSignals;
  /** Which signals become a task for the account's owner; default none (every signal a note). */
  followUps?: FollowUpSettings;
  now?: () => Date;
}

export type EnrichStatus = 'enriched' | 'needs_review' | 'no_match';

export interface EnrichResult {
  /** `state` as the CRM holds it (a code, a name, or what a person typed). */
  account: AccountRef & { name: string | null; state?: string | null };
  status: EnrichStatus;
  match: {
    buyerId: string | null;
    buyerName: string | null;
    /** The matched buyer's type (the provider's `Type`), when known. */
    buyerType?: string | null;
    confidence: number | null;
    source: string | null;
    explanation: string;
    candidates: {
      buyerId: string;
      name: string;
      stateCode: string | null;
      type: string | null;
      score: number;
    }[];
  };
  /** Every mapped field with the policy's decision; empty unless matched. */
  fields: FieldChange[];
  /** What was (or, in a dry run, would be) sent to the CRM, provenance included. */
  written: Record<string, string | null>;
  /** Values that did not fit their CRM field as they were: cut, rounded or left out, with the reason. */
  fitNotes?: FitNote[];
  notes: { created: { key: string; title: string }[]; alreadyPresent: number; overCap: number };
  dryRun: boolean;
}

export interface EnrichOptions {
  dryRun?: boolean;
  /** A person's decision this job applies: a confirmed buyer, or a search with an edited name/state. */
  review?: ReviewInstruction | undefined;
  /** The account was rejected (a pinned no_match in the store): no search, these words as the reason. */
  rejected?: { reason: string } | undefined;
  /** The run, job and trigger this enrichment belongs to: the write history names them. */
  job?: WriteOrigin | undefined;
}
