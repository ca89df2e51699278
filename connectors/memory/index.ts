// The in-memory CRM's descriptor: a test double, registered only by the tests (test/helpers/memory-crm.ts);
// set MEMORY_CRM_WORKSPACE to serve one workspace; its new accounts arrive as events in-process.
import { z } from 'zod';
import type { CrmDescriptor } from '../descriptor.ts';
import { createMemoryConnector, MEMORY_CRM } from './connector.ts';
import { memoryCrm } from './store.ts';

const WORKSPACE = /^[a-z0-9][a-z0-9-]{0,39}$/;

export interface MemoryConfig {
  workspace: string;
}

export const memory: CrmDescriptor<MemoryConfig> = {
  kind: MEMORY_CRM,
  label: 'In-memory CRM',
  accountNoun: 'account',
  tenantNoun: 'workspace',
  tenantId: (raw) => (WORKSPACE.test(raw) ? raw : undefined),
  accountId: (raw) => (/^[A-Za-z0-9_-]{1,64}$/.test(raw) ? raw : undefined),
  config: {
    variables: {
      MEMORY_CRM_WORKSPACE: z.string().regex(WORKSPACE, 'must be lowercase letters, digits and -').optional(),
    },
    read: (vars) => {
      const workspace = vars.MEMORY_CRM_WORKSPACE as string | undefined;
      return { problems: [], ...(workspace ? { config: { workspace } } : {}) };
    },
    hint: 'MEMORY_CRM_WORKSPACE for the in-memory CRM',
  },
  configuredTenants: (config) => [config.workspace],
  connect(config, runtime) {
    const store = memoryCrm(config.workspace);
    return {
      connections: [{ tenant: config.workspace, connector: createMemoryConnector(store) }],
      eventSources: [
        {
          name: `memory:${config.workspace}`,
          async start(emit) {
            // Each created account once; a re-emit of the same account is the same job.
            const stop = store.onCreated((accountId) => {
              emit([
                {
                  crm: MEMORY_CRM,
                  tenant: config.workspace,
                  accountId,
                  change: 'created',
                  dedupeParts: [accountId, 'created'],
                  cause: `account ${accountId} created`,
                },
              ]).catch((err: unknown) =>
                runtime.log.warn('could not queue a created account', { accountId, reason: String(err) }),
              );
            });
            return { close: async () => stop() };
          },
        },
      ],
    };
  },
  async doctor(config) {
    const n = memoryCrm(config.workspace).accounts.size;
    return { status: 'pass', detail: `workspace ${config.workspace}: ${n} accounts in this process` };
  },
};
