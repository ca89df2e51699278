// Every migration, in order, listed here rather than found on disk: the list is the same from src/
// and from dist/, and a migration cannot be skipped by a missing file. Names sort in order of release.
import type { Migration } from 'kysely';
import * as initial from './0001_initial.ts';
import * as duplicateOf from './0002_duplicate_of.ts';
import * as approvableIndex from './0003_approvable_index.ts';
import * as outcomeCounts from './0004_outcome_counts.ts';
import * as outcomesByRun from './0005_outcomes_by_run.ts';
import * as writeHistory from './0006_write_history.ts';
import * as undo from './0007_undo.ts';
import * as durableFromRedis from './0008_durable_from_redis.ts';
import * as undoClaim from './0009_undo_claim.ts';
import * as pendingWrites from './0010_pending_writes.ts';
import * as pendingNotes from './0011_pending_notes.ts';
import * as followUps from './0012_follow_ups.ts';
import * as noteRecordedIndex from './0013_note_recorded_index.ts';
import * as learnedDecisions from './0014_learned_decisions.ts';
import * as mappingVersions from './0015_mapping_versions.ts';
import * as mappingDocumentJson from './0016_mapping_document_json.ts';
import * as dashboardCounters from './0017_dashboard_counters.ts';
import * as fieldSummary from './0018_field_summary.ts';

export const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_duplicate_of': duplicateOf,
  '0003_approvable_index': approvableIndex,
  '0004_outcome_counts': outcomeCounts,
  '0005_outcomes_by_run': outcomesByRun,
  '0006_write_history': writeHistory,
  '0007_undo': undo,
  '0008_durable_from_redis': durableFromRedis,
  '0009_undo_claim': undoClaim,
  '0010_pending_writes': pendingWrites,
  '0011_pending_notes': pendingNotes,
  '0012_follow_ups': followUps,
  '0013_note_recorded_index': noteRecordedIndex,
  '0014_learned_decisions': learnedDecisions,
  '0015_mapping_versions': mappingVersions,
  '0016_mapping_document_json': mappingDocumentJson,
  '0017_dashboard_counters': dashboardCounters,
  '0018_field_summary': fieldSummary,
};
