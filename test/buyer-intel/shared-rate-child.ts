// One worker process of shared-rate.test.ts: sends CALLS quick searches through the service's client
// with the rate shared through Redis, as fast as that rate lets it, then exits.
import { childClient } from './child-client.ts';

const env = process.env;
const { client, redis } = childClient('shared-rate-token', { maxAttempts: 1 });
const calls = Number(env.CALLS);
// A fresh process's first fetch loads its HTTP stack (~200 ms) after its slot is taken, and arrives
// bunched with later ones: the workers measured here are warm, as a running worker is. Not counted.
await Promise.all(Array.from({ length: 4 }, () => fetch(`${env.BASE_URL}/__warm`).then((r) => r.text())));
// A few at a time, as a worker's concurrent jobs do.
let next = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (next < calls) {
      next++;
      await client.searchBuyers({ buyerName: `Springfield ${process.pid}` });
    }
  }),
);
redis.disconnect();
