// The notes an account is known to have, on a real Redis: when the record answers alone (the CRM's keys
// read in full, nothing pending) and when the CRM must be asked (never read, a note pending since a
// crash, the record lost), and how many Redis commands each step costs.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Ledgers } from '../../src/write/ledgers.ts';

const PREFIX = `test:ledgers-notes:${randomUUID()}`;
let redis: Redis;
let ledgers: Ledgers;
let commands: string[] = [];

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // Connected first: the handshake's own commands are not the ledger's.
  await redis.ping();
  // Every command the ledger sends, pipelined or not.
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, ...rest: never[]) => {
    commands.push(command.name);
    return send(command as never, ...rest);
  }) as typeof redis.sendCommand;
  ledgers = new Ledgers(redis, PREFIX);
});
beforeEach(() => {
  commands = [];
});
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

let n = 0;
const account = () => ({ crm: 'hubspot', tenant: '123', accountId: String(9000 + ++n) });

describe('notes known to be on an account', () => {
  it('are never complete before the CRM’s keys were recorded, even when some are known', async () => {
    const a = account();
    expect(await ledgers.noteKnowledge(a, ['k1', 'k2'])).toEqual({ known: new Set(), complete: false });
    await ledgers.recordNotes(a, ['k1']);
    expect(await ledgers.noteKnowledge(a, ['k1', 'k2'])).toEqual({
      known: new Set(['k1']),
      complete: false,
    });
    expect(await ledgers.knownNotes(a, ['k1', 'k2'])).toEqual(new Set(['k1']));
    expect(commands).toEqual(['smismember', 'sadd', 'smismember', 'smismember']);
  });

  it('answer alone once the CRM’s keys are recorded: the others are not on the account', async () => {
    const a = account();
    await ledgers.recordCrmNotes(a, ['k1', 'k3']);
    expect(await ledgers.noteKnowledge(a, ['k1', 'k2'])).toEqual({ known: new Set(['k1']), complete: true });
    // An account without notes on the CRM is complete too.
    const empty = account();
    await ledgers.recordCrmNotes(empty, []);
    expect(await ledgers.noteKnowledge(empty, ['k1'])).toEqual({ known: new Set(), complete: true });
    expect(commands).toEqual(['sadd', 'smismember', 'sadd', 'smismember']);
  });

  it('do not answer for a note pending since a crash until it is recorded; others stay answered', async () => {
    const a = account();
    await ledgers.recordCrmNotes(a, ['k1']);
    await ledgers.notesPending(a, ['k2']);
    // The crash: k2 may be on the CRM, unrecorded.
    expect(await ledgers.noteKnowledge(a, ['k1', 'k2'])).toEqual({ known: new Set(['k1']), complete: false });
    expect((await ledgers.noteKnowledge(a, ['k3'])).complete).toBe(true);
    // Recorded: the marker no longer matters.
    await ledgers.recordNotes(a, ['k2']);
    expect(await ledgers.noteKnowledge(a, ['k2', 'k3'])).toEqual({ known: new Set(['k2']), complete: true });
  });

  it('mark the notes about to be created pending in the same command that records the CRM’s keys', async () => {
    const a = account();
    await ledgers.notesPending(a, ['stale', 'k4']);
    commands = [];
    // The CRM answered for `stale` (not there) and `k4` (about to be created).
    await ledgers.recordCrmNotes(a, ['k1'], { creating: ['k4'], settled: ['stale', 'k4'] });
    expect(commands).toEqual(['sadd', 'srem']);
    expect(await ledgers.noteKnowledge(a, ['stale'])).toEqual({ known: new Set(), complete: true });
    expect((await ledgers.noteKnowledge(a, ['k4'])).complete).toBe(false);
    commands = [];
    await ledgers.recordCrmNotes(a, ['k1'], { creating: ['k5'] });
    expect(commands).toEqual(['sadd']);
  });

  it('stay complete when an undo removes notes: those are gone from the CRM', async () => {
    const a = account();
    await ledgers.recordCrmNotes(a, ['k1', 'k2']);
    await ledgers.notesPending(a, ['k2']);
    await ledgers.forgetNotes(a, ['k2']);
    expect(await ledgers.noteKnowledge(a, ['k1', 'k2'])).toEqual({ known: new Set(['k1']), complete: true });
  });

  it('are not complete any more when Redis loses them', async () => {
    const a = account();
    await ledgers.recordCrmNotes(a, ['k1']);
    await redis.del(`${PREFIX}:notes:${a.crm}:${a.tenant}:${a.accountId}`);
    expect(await ledgers.noteKnowledge(a, ['k1'])).toEqual({ known: new Set(), complete: false });
  });

  it('cost no command when nothing is asked or recorded', async () => {
    const a = account();
    expect(await ledgers.noteKnowledge(a, [])).toEqual({ known: new Set(), complete: true });
    await ledgers.notesPending(a, []);
    await ledgers.recordNotes(a, []);
    expect(commands).toEqual([]);
  });
});
