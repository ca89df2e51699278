// Which CRM features the configuration turns on, for the connectors: an install asks for the
// permissions these need and `doctor` checks a token against them. Notes are written by the signal
// notes, every digest and the follow-ups' note fallback; owners are read by follow-ups and the
// per-owner digest; tasks are the follow-ups' own.
import type { CrmFeatures } from '../../connectors/descriptor.ts';
import type { DigestSettings } from '../digest/settings.ts';

export function crmFeatures(settings: {
  signals: { maxNotesPerRun: number };
  followUps?: { taskTypes: readonly string[] } | undefined;
  digest?: DigestSettings | undefined;
}): CrmFeatures {
  const tasks = (settings.followUps?.taskTypes.length ?? 0) > 0;
  const digest = settings.digest ?? {};
  return {
    notes:
      settings.signals.maxNotesPerRun > 0 ||
      tasks ||
      !!(digest.perAccount || digest.orgWide || digest.perOwner),
    tasks,
    owners: tasks || !!digest.perOwner,
  };
}
