// The follow-up settings as an operator sets them (every problem listed at once, none echoing a value),
// and what a signal becomes: a note, or a task for the account's owner (or the fallback owner) with a
// due date and a priority taken from the signal.
import { describe, expect, it } from 'vitest';
import type { NoteDraft } from '../../connectors/types.ts';
import type { BridgeSignal } from '../../src/buyer-intel/schemas.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadEnv } from '../../src/config/env.ts';
import { followUpOf } from '../../src/follow-ups/drafts.ts';
import { type FollowUpSettings, followUpSettings } from '../../src/follow-ups/settings.ts';
import { outcomeOf } from '../../src/follow-ups/sweep.ts';

const BASE = {
  BUYER_INTEL_BASE_URL: 'http://127.0.0.1:1',
  BUYER_INTEL_TOKEN: 'token',
  HUBSPOT_ACCESS_TOKEN: 'pat-na1-00000000-0000-0000-0000-000000000000',
  HUBSPOT_PORTAL_ID: '123',
  HUBSPOT_CLIENT_SECRET: 'secret-secret-secret',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadEnv({ ...BASE, ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('FOLLOW_UP_* settings', () => {
  it('are off by default: no signal type becomes a task, deletion counts as dismissal', () => {
    const settings = followUpSettings(loadEnv(BASE));
    expect(settings).toMatchObject({ taskTypes: [], dueDays: 3, sweepMinutes: 15, dismissed: ['deleted'] });
  });

  it('read types, priorities, fallback owners and dismissal statuses', () => {
    const settings = followUpSettings(
      loadEnv({
        ...BASE,
        FOLLOW_UP_TASK_TYPES: 'RFP,Meeting',
        FOLLOW_UP_PRIORITY: 'RFP=high, Meeting=low',
        FOLLOW_UP_FALLBACK_OWNERS: 'hubspot=71000001',
        FOLLOW_UP_DISMISSED: 'deleted,DEFERRED',
        FOLLOW_UP_SWEEP_MINUTES: '5',
      }),
    );
    expect(settings).toMatchObject({
      taskTypes: ['RFP', 'Meeting'],
      priority: { RFP: 'high', Meeting: 'low' },
      fallbackOwners: { hubspot: '71000001' },
      dismissed: ['deleted', 'DEFERRED'],
      sweepMinutes: 5,
    });
  });

  it('list every bad value at once, by variable', () => {
    const problems = problemsOf({
      FOLLOW_UP_TASK_TYPES: 'RFP,Rfp',
      FOLLOW_UP_PRIORITY: 'RFP=urgent',
      FOLLOW_UP_FALLBACK_OWNERS: 'pipedrive=12',
      FOLLOW_UP_DUE_DAYS: 'soon',
      FOLLOW_UP_SWEEP_MINUTES: '100000',
    });
    for (const name of [
      'FOLLOW_UP_TASK_TYPES',
      'FOLLOW_UP_PRIORITY',
      'FOLLOW_UP_FALLBACK_OWNERS',
      'FOLLOW_UP_DUE_DAYS',
      'FOLLOW_UP_SWEEP_MINUTES',
    ])
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
  });
});

const NOW = new Date('2026-11-27T09:00:00Z');
const SETTINGS: FollowUpSettings = {
  taskTypes: ['RFP'],
  priority: { RFP: 'low' },
  dueDays: 3,
  fallbackOwners: { hubspot: '99' },
  sweepMinutes: 15,
  dismissed: ['deleted', 'DEFERRED'],
};
const NOTE: NoteDraft = {
  accountId: '1',
  dedupeKey: 'bi-b-r',
  title: 'RFP',
  body: 'x',
  occurredAt: NOW.toISOString(),
};
const cell = (value: unknown) => ({ value, status: null, processedAt: null });
const signal = (filterType: string, columns: Record<string, unknown> = {}): BridgeSignal =>
  ({
    bridge: { bridgeId: 'b', name: 'RFPs', filterType, columns: [] },
    row: {
      rowId: 'r',
      bridgeId: 'b',
      columns: Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, cell(v)])),
    },
  }) as BridgeSignal;

describe('a signal becomes', () => {
  it('a task for the account’s owner, due on the RFP’s own date, prioritised by the type', () => {
    const draft = followUpOf(
      NOTE,
      signal('RFP', { 'Due Date': '2026-12-15' }),
      { crm: 'hubspot', ownerId: '7' },
      SETTINGS,
      NOW,
    );
    expect(draft).toEqual({ ...NOTE, task: { ownerId: '7', dueDate: '2026-12-15', priority: 'low' } });
  });

  it('due in FOLLOW_UP_DUE_DAYS when its own date is past, and as hot as its hotness column says', () => {
    const draft = followUpOf(
      NOTE,
      signal('RFP', { 'Due Date': '2026-01-01', Hotness: 82 }),
      { crm: 'hubspot', ownerId: '7' },
      SETTINGS,
      NOW,
    );
    expect(draft.task).toEqual({ ownerId: '7', dueDate: '2026-11-30', priority: 'high' });
  });

  it('a task for the fallback owner of an unowned account, or a note where there is none', () => {
    expect(followUpOf(NOTE, signal('RFP'), { crm: 'hubspot' }, SETTINGS, NOW).task?.ownerId).toBe('99');
    expect(followUpOf(NOTE, signal('RFP'), { crm: 'salesforce' }, SETTINGS, NOW)).toEqual(NOTE);
  });

  it('a note when its type is not a follow-up type', () => {
    expect(followUpOf(NOTE, signal('Meeting'), { crm: 'hubspot', ownerId: '7' }, SETTINGS, NOW)).toEqual(
      NOTE,
    );
  });
});

describe('a task’s state sets its row', () => {
  it('completed → Actioned; deleted or a dismissal status → NotInterested; open → nothing yet', () => {
    expect(outcomeOf({ noteId: 't', state: 'completed', status: 'COMPLETED' }, SETTINGS.dismissed)).toBe(
      'Actioned',
    );
    expect(outcomeOf({ noteId: 't', state: 'deleted', status: null }, SETTINGS.dismissed)).toBe(
      'NotInterested',
    );
    expect(outcomeOf({ noteId: 't', state: 'open', status: 'DEFERRED' }, SETTINGS.dismissed)).toBe(
      'NotInterested',
    );
    expect(outcomeOf({ noteId: 't', state: 'open', status: 'IN_PROGRESS' }, SETTINGS.dismissed)).toBeNull();
    expect(outcomeOf({ noteId: 't', state: 'deleted', status: null }, ['DEFERRED'])).toBeNull();
  });
});
