// Change Data Capture as an event source: only new Accounts start work (our own writes come back as
// UPDATEs and must not loop); the replay id is kept in Redis once the work is queued.
import type { CrmRuntime, EventSource } from '../descriptor.ts';
import { subscribeAccountChanges } from './change-events.ts';
import type { SalesforceConnector } from './connector.ts';
import { id15, salesforceId18 } from './ids.ts';

export function accountChangeSource(
  connector: SalesforceConnector,
  options: { instanceUrl: string; apiVersion: string },
  runtime: CrmRuntime,
): EventSource {
  const org = id15(connector.tenant);
  return {
    name: `salesforce-cdc:${org}`,
    start: (emit) =>
      subscribeAccountChanges({
        instanceUrl: options.instanceUrl,
        apiVersion: options.apiVersion,
        accessToken: () => connector.session.accessToken(),
        reauthenticate: () => connector.session.reauthenticate(),
        redis: runtime.redis,
        replayKey: `${runtime.prefix}:cdc:${org}:replay`,
        onEvent: async (event) => {
          if (event.changeType !== 'CREATE') return;
          await emit(
            event.recordIds.map((accountId) => ({
              crm: 'salesforce',
              tenant: org,
              accountId: salesforceId18(accountId) ?? accountId,
              change: 'created' as const,
              dedupeParts: [id15(accountId), 'cdc', event.replayId],
              cause: `AccountChangeEvent CREATE replay ${event.replayId}`,
            })),
          );
        },
        log: (line, fields) => runtime.log.info(line, { ...fields, source: 'salesforce-cdc' }),
      }),
  };
}
