// The in-memory CRM's "emulator" (connectors/memory/): its store lives in this process, so starting
// it picks a fresh workspace and its events are the store's own. Like its connector, a test double:
// emulators/registry.ts does not list it; a test registers it (registerEmulator) to show that the
// sandbox, the demo and startTestService take a new CRM from its descriptor alone
// (test/e2e/throwaway-crm.test.ts). It answers no HTTP, so no conformance document checks it.
import { randomUUID } from 'node:crypto';
import { MEMORY_CRM } from '../../connectors/memory/connector.ts';
import type { MemoryConfig } from '../../connectors/memory/index.ts';
import { type MemoryCrmStore, memoryCrm } from '../../connectors/memory/store.ts';
import type { EmulatorDescriptor, RunningEmulator } from '../descriptor.ts';

export interface RunningMemoryCrm extends RunningEmulator {
  workspace: string;
  store: MemoryCrmStore;
}

export const memoryEmulator: EmulatorDescriptor<RunningMemoryCrm> = {
  kind: MEMORY_CRM,
  label: 'In-memory CRM emulator',
  demoHeading: 'In-memory CRM accounts (notes = signal notes, or the owner’s tasks):',
  port: 0,
  conformance: { api: MEMORY_CRM, documents: [] },
  async start() {
    const workspace = `ws-${randomUUID().slice(0, 8)}`;
    return { url: `memory://${workspace}`, workspace, store: memoryCrm(workspace), close: async () => {} };
  },
  settings: (crm) => ({ workspace: crm.workspace }) satisfies MemoryConfig,
  tenantOf: (crm) => crm.workspace,
  describe: (crm) => ({
    heading: `In-memory CRM emulator: ${crm.url}  (workspace ${crm.workspace})`,
    examples: [],
    exports: [`export MEMORY_CRM_WORKSPACE=${crm.workspace}`],
  }),
  createAccount(crm, account, how) {
    const id = crm.store.createAccount({
      name: account.name,
      ...(account.state ? { state: account.state } : {}),
      ...(account.website ? { website: account.website } : {}),
    });
    const created = crm.store.accounts.get(id);
    if (created && how.owner) created.ownerId = how.owner;
    return id;
  },
  // Its connector's event source hears the store in this process: nothing to point anywhere.
  sendEventsTo: () => 'in-process events',
  serviceExports: [],
  addOwner(crm, person) {
    const id = `owner${crm.store.owners.length + 1}`;
    crm.store.owners.push({
      id,
      email: person.email,
      name: `${person.firstName} ${person.lastName}`,
      active: true,
    });
    return id;
  },
  setOwner(crm, accountId, owner) {
    const account = crm.store.accounts.get(accountId);
    if (account) account.ownerId = owner;
  },
  activityCount: (crm, id) => crm.store.notesOf(id).length,
  tasksOf: (crm, accountId, owner) =>
    crm.store
      .notesOf(accountId)
      .flatMap((n) =>
        n.task && n.task.ownerId === owner
          ? [{ id: n.id, subject: n.title, owner, due: n.task.dueDate, priority: n.task.priority }]
          : [],
      ),
  completeTask: (crm, taskId) => crm.store.setTaskStatus(taskId, 'completed'),
  calls: () => 0,
  demoAccounts: [
    { name: 'City of Austin', state: 'TX', website: 'https://www.austintexas.gov' },
    { name: 'Travis County', state: 'TX' },
  ],
};
