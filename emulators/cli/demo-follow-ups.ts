// The demo's follow-up part: one account per CRM has an owner (a sales rep), so its signals land in
// that rep's task queue instead of as notes; the rep completes one, and one sweep turns the provider's
// row `Actioned` — as the provider's own feed of the buyer's signals then shows it. Each CRM acts
// through its emulator's descriptor (emulators/descriptor.ts).
import { crmOf } from '../../connectors/registry.ts';
import { FOLLOW_UP_SWEEP_JOB } from '../../queues/follow-up-sweep.ts';
import { SIGNAL_FILTER_TYPES } from '../../src/buyer-intel/enums.ts';
import { renderTable } from '../../src/cli/table.ts';
import type { FollowUpSettings } from '../../src/follow-ups/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import type { RunningBuyerIntelSandbox } from '../buyer-intel/server.ts';
import type { EmulatedPerson, RunningEmulator } from '../descriptor.ts';
import type { AnyEmulator } from '../registry.ts';

/** One CRM in the demo: its emulator, running, and the accounts a person created in it. */
export interface DemoCrm {
  emulator: AnyEmulator;
  running: RunningEmulator;
  /** The tenant the service serves it as. */
  tenant: string;
  ids: string[];
}

/** The reps who own one account each, a CRM each in registry order (cycled past the fourth). */
const FOLLOW_UP_REPS: EmulatedPerson[] = [
  { email: 'rita.vance@demo.example', firstName: 'Rita', lastName: 'Vance' },
  { email: 'omar.bell@demo.example', firstName: 'Omar', lastName: 'Bell' },
  { email: 'lena.park@demo.example', firstName: 'Lena', lastName: 'Park' },
  { email: 'ivo.grant@demo.example', firstName: 'Ivo', lastName: 'Grant' },
];

/** A rep for the `i`th CRM: the list's, numbered once the list runs out (each address unique). */
export function repFor(reps: readonly EmulatedPerson[], i: number): EmulatedPerson {
  const rep = reps[i % reps.length] as EmulatedPerson;
  const round = Math.floor(i / reps.length);
  return round === 0 ? rep : { ...rep, email: rep.email.replace('@', `.${round + 1}@`) };
}

/**
 * Adds each CRM's rep as an admin would (a HubSpot owner, a Salesforce User, …): every CRM refuses an
 * owner id that names no user. Their ids by CRM kind.
 */
export function addDemoOwners(crms: readonly DemoCrm[]): Record<string, string> {
  return Object.fromEntries(
    crms.map((crm, i) => [crm.emulator.kind, crm.emulator.addOwner(crm.running, repFor(FOLLOW_UP_REPS, i))]),
  );
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

export async function showFollowUps(options: {
  service: Service;
  bi: RunningBuyerIntelSandbox;
  /** The first account of each is the owned one. */
  crms: readonly DemoCrm[];
  owners: Record<string, string>;
  out: (line?: string) => void;
}): Promise<void> {
  const { service, crms, out } = options;
  const tasksOf = (crm: DemoCrm) =>
    crm.emulator.tasksOf(crm.running, crm.ids[0] ?? '', options.owners[crm.emulator.kind] ?? '');
  const queue = crms.flatMap((crm) =>
    tasksOf(crm).map((t) => [
      crmOf(crm.emulator.kind).label,
      t.owner,
      t.subject.slice(0, 40),
      t.due,
      t.priority,
    ]),
  );
  out();
  out('follow-ups: signals on an owned account land in its owner’s task queue (others stay notes):');
  out(renderTable(queue, { head: ['CRM', 'owner', 'task', 'due', 'priority'] }));

  // Each CRM's rep completes one task.
  for (const crm of crms) {
    const done = tasksOf(crm)[0];
    if (done) crm.emulator.completeTask(crm.running, done.id);
  }
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
