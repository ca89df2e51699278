// The load generator of the ingest benchmark, in its own process so that autocannon does not share
// the event loop (or the core) of the server it measures. The parent sends what to post; every request
// is made here as it is sent: a HubSpot delivery of `size` company.creation events with event ids and
// object ids never used before in this process, signed (v3) with the current timestamp. So no request
// repeats another and nothing is skipped as a duplicate.
import autocannon from 'autocannon';
import { hubspotSignatureV3 } from '../connectors/hubspot/webhook-signature.ts';

export interface LoadRun {
  type: 'run';
  url: string;
  durationS: number;
  connections: number;
  delivery: { uri: string; secret: string; portalId: number; appId: number; size: number };
}

if (!process.send) {
  console.error('bench/load-process.ts is started by bench/ingest.ts (fork)');
  process.exit(2);
}

// Ids of this process: each event and object once (a fresh base per load generator).
let next = Date.now() * 1000;

function delivery(d: LoadRun['delivery']) {
  const now = Date.now();
  const body = JSON.stringify(
    Array.from({ length: d.size }, () => {
      const n = next++;
      return {
        eventId: n,
        subscriptionId: 2_400_001,
        portalId: d.portalId,
        appId: d.appId,
        occurredAt: now,
        subscriptionType: 'company.creation',
        attemptNumber: 0,
        objectId: n,
        changeFlag: 'CREATED',
        changeSource: 'CRM_UI',
        sourceId: 'userId:10293847',
      };
    }),
  );
  const timestamp = String(now);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': hubspotSignatureV3(d.secret, 'POST', d.uri, body, timestamp),
    },
  };
}

process.on('message', async (message: LoadRun | { type: 'exit' }) => {
  if (message.type === 'exit') {
    process.disconnect?.();
    return;
  }
  let sent = 0;
  const result = await autocannon({
    url: message.url,
    connections: message.connections,
    pipelining: 1,
    duration: message.durationS,
    requests: [
      {
        method: 'POST',
        path: '/webhooks/hubspot',
        setupRequest: (req) => {
          sent++;
          return { ...req, ...delivery(message.delivery) };
        },
      },
    ],
  });
  process.send?.({ type: 'result', result, sent });
});
process.send({ type: 'ready' });
