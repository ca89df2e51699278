// One worker process of pace-convergence.test.ts: keeps CONCURRENCY quick searches in flight through
// the service's client, paced by the pace shared through Redis, until UNTIL (epoch ms), then prints
// what it saw as one JSON line and exits.
import { RateLimitError } from '../../src/buyer-intel/errors.ts';
import { childClient } from './child-client.ts';

const env = process.env;
const { client, redis } = childClient(String(env.TOKEN));
const until = Number(env.UNTIL);
const seen = { ok: 0, gaveUp: 0, failed: 0 };
// Start together with the other processes, as workers picking up one backfill do.
await new Promise((r) => setTimeout(r, Math.max(0, Number(env.START) - Date.now())));
await Promise.all(
  Array.from({ length: Number(env.CONCURRENCY) }, async (_, i) => {
    while (Date.now() < until) {
      try {
        await client.searchBuyers({ buyerName: `Springfield ${process.pid} ${i}` });
        seen.ok++;
      } catch (err) {
        if (err instanceof RateLimitError) seen.gaveUp++;
        else seen.failed++;
      }
    }
  }),
);
process.stdout.write(`${JSON.stringify(seen)}\n`);
redis.disconnect();
