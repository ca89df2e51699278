// The demo's follow-up part: one account per CRM has an owner (a sales rep), so its signals land in
// that rep's task queue instead of as notes; the rep completes one, and one sweep turns the provider's
// row `Actioned` — as the provider's own feed of the buyer's signals then shows it.
import { FOLLOW_UP_SWEEP_JOB } from '../../queues/follow-up-sweep.ts';
import { SIGNAL_FILTER_TYPES } from '../../src/buyer-intel/enums.ts';
import { renderTable } from '../../src/cli/table.ts';
import type { FollowUpSettings } from '../../src/follow-ups/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import type { RunningBuyerIntelSandbox } from '../buyer-intel/server.ts';
import type { RunningHubSpotSandbox } from '../hubspot/server.ts';
import type { RunningSalesforceSandbox } from '../salesforce/server.ts';

/**
 * The reps who own one account each, added as an admin would (a HubSpot owner, a Salesforce User): both
 * CRMs refuse an owner id that names no user.
 */
export function addDemoOwners(
  hs: RunningHubSpotSandbox,
  sf: RunningSalesforceSandbox,
): { hubspot: string; salesforce: string } {
  const hubspot = hs.store.owners.add({
    email: 'rita.vance@demo.example',
    firstName: 'Rita',
    lastName: 'Vance',
  });
  const salesforce = sf.store.create('User', {
    Username: 'omar.bell@demo.example',
    Email: 'omar.bell@demo.example',
    FirstName: 'Omar',
    LastName: 'Bell',
  });
  return { hubspot: hubspot.id, salesforce: salesforce.id };
}

/** Every signal of an owned account becomes a task for its owner; unowned accounts keep notes. */
export const DEMO_FOLLOW_UPS: FollowUpSettings = {
  taskTypes: [...SIGNAL_FILTER_TYPES],
  priority: { RFP: 'high' },
  dueDays: 3,
  fallbackOwners: {},
  sweepMinutes: 0,
  dismissed: ['deleted'],
};

interface Task {
  id: string;
  subject: string;
  owner: string;
  due: string;
  priority: string;
}

export async function showFollowUps(options: {
  service: Service;
  bi: RunningBuyerIntelSandbox;
  hs: RunningHubSpotSandbox;
  sf: RunningSalesforceSandbox;
  /** The owned company and Account, and their buyer. */
  hubspotId: string;
  salesforceId: string;
  owners: { hubspot: string; salesforce: string };
  out: (line?: string) => void;
}): Promise<void> {
  const { service, hs, sf, out } = options;
  const hsTasks = (id: string): Task[] =>
    hs.store.associations('companies', id, 'tasks').map(({ toId }) => {
      const v = (p: string) => hs.store.get('tasks', toId)?.values.get(p) ?? '';
      return {
        id: toId,
        subject: v('hs_task_subject'),
        owner: v('hubspot_owner_id'),
        due: v('hs_timestamp').slice(0, 10),
        priority: v('hs_task_priority'),
      };
    });
  const sfTasks = (id: string): Task[] =>
    sf.store
      .list('Task')
      .filter((t) => t.values.get('WhatId') === id && t.values.get('OwnerId') === options.owners.salesforce)
      .map((t) => ({
        id: t.id,
        subject: String(t.values.get('Subject') ?? ''),
        owner: String(t.values.get('OwnerId') ?? ''),
        due: String(t.values.get('ActivityDate') ?? ''),
        priority: String(t.values.get('Priority') ?? ''),
      }));
  const queue = [
    ...hsTasks(options.hubspotId).map((t) => ['HubSpot', t.owner, t.subject.slice(0, 40), t.due, t.priority]),
    ...sfTasks(options.salesforceId).map((t) => [
      'Salesforce',
      t.owner,
      t.subject.slice(0, 40),
      t.due,
      t.priority,
    ]),
  ];
  out();
  out('follow-ups: signals on an owned account land in its owner’s task queue (others stay notes):');
  out(renderTable(queue, { head: ['CRM', 'owner', 'task', 'due', 'priority'] }));

  // The HubSpot rep completes a task; Salesforce's rep completes one too.
  const done = hsTasks(options.hubspotId)[0];
  if (done) hs.store.update('tasks', done.id, { hs_task_status: 'COMPLETED' }, { source: 'CRM_UI' });
  const sfDone = sfTasks(options.salesforceId)[0];
  if (sfDone) sf.store.update('Task', sfDone.id, { Status: 'Completed' });
  const job = await service.maintenanceQueue.add(FOLLOW_UP_SWEEP_JOB, {}, { attempts: 1 });
  const deadline = Date.now() + 20_000;
  while ((await service.maintenanceQueue.getJobState(job.id ?? '')) !== 'completed') {
    if (Date.now() > deadline) throw new Error('the follow-up sweep did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
  const closures = await (await service.store.open()).followUps.closures(10);
  const changeOf = (rowId: string) => {
    const change = options.bi.statusChanges.find((c) => c.rowId === rowId);
    return change ? `${change.from} → ${change.to}` : 'unchanged';
  };
  out('a rep completed a task; one sweep later the provider’s row says so (setBridgeRowStatus):');
  out(
    renderTable(
      closures.map((c) => [c.crm, c.taskId, c.crmState, `${c.rowId.slice(0, 8)}…`, changeOf(c.rowId)]),
      { head: ['CRM', 'task', 'task is', 'provider row', 'row status'] },
    ),
  );
}
