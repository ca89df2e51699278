// Every command that needs Redis asks it first, with a short deadline: an unreachable Redis is one
// line in a few seconds, not a command waiting forever on ioredis' reconnects and offline queue.
import { pingRedis, RedisUnavailableError } from '../../queues/redis.ts';

export async function requireRedis(url: string): Promise<void> {
  try {
    await pingRedis(url);
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err;
    const fix = err.reason.startsWith('authentication')
      ? 'fix the user or password in REDIS_URL'
      : 'start Redis or set REDIS_URL';
    throw new Error(`${err.message}: ${fix}`, { cause: err });
  }
}
