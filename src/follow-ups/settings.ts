// Which signals become a task for the account's owner instead of a note, and how the loop back to the
// provider closes. Read from FOLLOW_UP_* variables (or `followUps.*` in CONFIG_FILE) with the rest of
// the configuration, so every problem is listed at start.
import { z } from 'zod';
import { isCrmKind } from '../../connectors/registry.ts';
import type { TaskPriority } from '../../connectors/types.ts';
import { SIGNAL_FILTER_TYPES, type SignalFilterType } from '../buyer-intel/enums.ts';
import { enumList, int, splitList } from '../shared/config-schema.ts';

const PRIORITIES: readonly TaskPriority[] = ['high', 'medium', 'low'];

/** `KEY=value` pairs, comma-separated; each key and value checked; a message never echoes a value. */
const pairs = <K extends string, V extends string>(
  key: (k: string) => k is K,
  value: (v: string) => v is V,
  what: string,
) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const out: Partial<Record<K, V>> = {};
      for (const item of splitList(raw)) {
        const [k = '', v = ''] = item.split('=').map((s) => s.trim());
        if (!key(k) || !value(v)) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(k)}: ${what}` });
          continue;
        }
        out[k] = v;
      }
      return out;
    });

const isSignalType = (k: string): k is SignalFilterType =>
  (SIGNAL_FILTER_TYPES as readonly string[]).includes(k);
const isPriority = (v: string): v is TaskPriority => (PRIORITIES as readonly string[]).includes(v);
const isOwnerId = (v: string): v is string => /^[A-Za-z0-9_-]{1,64}$/.test(v);

export const followUpVariables = {
  /** Signal types that become a task for the account's owner (the others stay notes); empty: none. */
  FOLLOW_UP_TASK_TYPES: enumList(SIGNAL_FILTER_TYPES),
  /** `RFP=high,Meeting=low`: a type's priority when the signal carries no hotness; default medium. */
  FOLLOW_UP_PRIORITY: pairs(
    isSignalType,
    isPriority,
    `must be a signal type (${SIGNAL_FILTER_TYPES.join(', ')}) = ${PRIORITIES.join('|')}`,
  ),
  /** Days from the signal to the task's due date when the signal names no due date of its own. */
  FOLLOW_UP_DUE_DAYS: int(0, 365, 3),
  /** `hubspot=123,salesforce=005…`: who gets the task of an account without an owner; unset: a note. */
  FOLLOW_UP_FALLBACK_OWNERS: pairs(
    (k): k is string => isCrmKind(k),
    isOwnerId,
    'must be a CRM this service speaks = a user id (letters, digits, - and _)',
  ),
  /** Minutes between sweeps of our open tasks (completed/dismissed → the provider's row); 0: off. */
  FOLLOW_UP_SWEEP_MINUTES: int(0, 1_440, 15),
  /**
   * What counts as dismissed (→ NotInterested): `deleted`, and/or task statuses as the CRM holds them
   * (`DEFERRED` in HubSpot, `Deferred` in Salesforce). Default: deleted.
   */
  FOLLOW_UP_DISMISSED: z
    .string()
    .optional()
    .transform((v) => (splitList(v).length ? splitList(v) : ['deleted'])),
};

export const FOLLOW_UP_FILE_KEYS: Readonly<Record<string, string>> = {
  'followUps.taskTypes': 'FOLLOW_UP_TASK_TYPES',
  'followUps.priority': 'FOLLOW_UP_PRIORITY',
  'followUps.dueDays': 'FOLLOW_UP_DUE_DAYS',
  'followUps.fallbackOwners': 'FOLLOW_UP_FALLBACK_OWNERS',
  'followUps.sweepMinutes': 'FOLLOW_UP_SWEEP_MINUTES',
  'followUps.dismissed': 'FOLLOW_UP_DISMISSED',
};

export interface FollowUpSettings {
  taskTypes: readonly string[];
  priority: Partial<Record<string, TaskPriority>>;
  dueDays: number;
  fallbackOwners: Partial<Record<string, string>>;
  sweepMinutes: number;
  dismissed: readonly string[];
}

/** The settings from the validated variables. */
export function followUpSettings(vars: {
  FOLLOW_UP_TASK_TYPES: readonly string[];
  FOLLOW_UP_PRIORITY: Partial<Record<string, TaskPriority>>;
  FOLLOW_UP_DUE_DAYS: number;
  FOLLOW_UP_FALLBACK_OWNERS: Partial<Record<string, string>>;
  FOLLOW_UP_SWEEP_MINUTES: number;
  FOLLOW_UP_DISMISSED: readonly string[];
}): FollowUpSettings {
  return {
    taskTypes: vars.FOLLOW_UP_TASK_TYPES,
    priority: vars.FOLLOW_UP_PRIORITY,
    dueDays: vars.FOLLOW_UP_DUE_DAYS,
    fallbackOwners: vars.FOLLOW_UP_FALLBACK_OWNERS,
    sweepMinutes: vars.FOLLOW_UP_SWEEP_MINUTES,
    dismissed: vars.FOLLOW_UP_DISMISSED,
  };
}

/** No task is ever made: every signal stays a note. */
export const NO_FOLLOW_UPS: FollowUpSettings = {
  taskTypes: [],
  priority: {},
  dueDays: 3,
  fallbackOwners: {},
  sweepMinutes: 0,
  dismissed: ['deleted'],
};
