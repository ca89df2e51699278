// One create per note at a time, across every worker process: whoever sends a batch of notes first
// claims each note (account + dedupe key) in Redis, and sends only the notes it claimed.
//
// Why: a job decides a note is missing by asking the CRM, then creates it; the create may wait in a
// shared batch (src/batch/shared.ts) or run in another process's call. A worker killed mid-job leaves
// its notes there, BullMQ hands the job to another worker, and that attempt can ask the CRM before
// the first attempt's notes land: both were created (4 workers, one SIGKILLed: 10 of 2,000 accounts
// with a note twice). With the claim, the later create of a note is refused while the first is in
// flight, and for as long after it as a create decided before it could still be waiting for a batch;
// the refusal is transient, so that job retries, finds the note on the CRM (its pending marker sends it
// there, src/write/ledgers.ts) and does not make it again. A note the CRM refused frees its claim.
import type { Redis } from 'ioredis';
import type { CrmKind, NoteDraft } from '../../connectors/types.ts';

/** A claim lives this long while its call runs, renewed every third of it (a dead sender's lapses). */
const IN_FLIGHT_MS = 30_000;
/**
 * A note made stays claimed this long: longer than a create decided before it can wait for its batch
 * (a shared batch's deadline, 120 s, after which no sender takes the item).
 */
const MADE_MS = 300_000;
/** A call that failed as a whole may still land: its claims hold a little longer, then lapse. */
const UNSURE_MS = 5_000;

// A call's claims, only those still the caller's (ARGV[1]): the first ARGV[3] keys get ARGV[2] ms more,
// the others are freed. One script call (by SHA) per call of notes, one MGET and one DEL in it: the
// keys share the ledgers' prefix and its hash tag, so one slot on a Cluster.
const SETTLE = `local held = redis.call('MGET', unpack(KEYS))
local extended, freed = tonumber(ARGV[3]), {}
for i = 1, #KEYS do
  if held[i] == ARGV[1] then
    if i <= extended then redis.call('PEXPIRE', KEYS[i], ARGV[2]) else freed[#freed + 1] = KEYS[i] end
  end
end
if #freed > 0 then redis.call('DEL', unpack(freed)) end
return 0`;

type Settling = Redis & { bisClaimsSettle(...args: string[]): Promise<unknown> };

export const noteClaimKey = (
  prefix: string,
  crm: CrmKind,
  tenant: string,
  note: Pick<NoteDraft, 'accountId' | 'dedupeKey'>,
): string => `${prefix}:note-claim:${crm}:${tenant}:${note.accountId}:${note.dedupeKey}`;

type Note = Pick<NoteDraft, 'accountId' | 'dedupeKey'>;

export interface NoteClaim {
  /** Per note asked for, in order: whether this call may create it. */
  held: boolean[];
  /** After the CRM answered: the notes made stay claimed, the others are free again. */
  settle(made: readonly Note[], refused: readonly Note[]): Promise<void>;
  /** The call failed as a whole (whether it landed is unknown): the claims lapse shortly. */
  abandon(): Promise<void>;
}

export class NoteClaims {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** `prefix`: the ledgers' (src/write/ledgers.ts drops an account's claims with its notes). */
  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    if (typeof (redis as Settling).bisClaimsSettle !== 'function')
      redis.defineCommand('bisClaimsSettle', { lua: SETTLE });
  }

  /** Extends `extend` by `ms` and frees `free`, where still `owner`'s. */
  #settle(owner: string, extend: readonly string[], ms: number, free: readonly string[] = []): Promise<void> {
    const keys = [...extend, ...free];
    if (!keys.length) return Promise.resolve();
    return (this.#redis as Settling)
      .bisClaimsSettle(String(keys.length), ...keys, owner, String(ms), String(extend.length))
      .then(() => undefined);
  }

  /**
   * Claims the notes of one call (one round trip). A note named twice in the call is held by both
   * entries: the connector makes it once (createNotesOnce).
   */
  async take(crm: CrmKind, tenant: string, notes: readonly Note[], owner: string): Promise<NoteClaim> {
    const keyOf = (n: Note) => noteClaimKey(this.#prefix, crm, tenant, n);
    const unique = [...new Set(notes.map(keyOf))];
    const set = this.#redis.pipeline();
    for (const key of unique) set.set(key, owner, 'PX', IN_FLIGHT_MS, 'NX');
    const answers = (await set.exec()) ?? [];
    const mine = new Set(unique.filter((_, i) => answers[i]?.[1] === 'OK'));
    const extend = (keys: readonly string[], ms: number) => this.#settle(owner, keys, ms);
    const heartbeat = mine.size
      ? setInterval(() => void extend([...mine], IN_FLIGHT_MS).catch(() => {}), IN_FLIGHT_MS / 3)
      : undefined;
    heartbeat?.unref();
    const stop = () => clearInterval(heartbeat);
    return {
      held: notes.map((n) => mine.has(keyOf(n))),
      settle: async (made, refused) => {
        stop();
        const kept = new Set(made.map(keyOf));
        const freed = new Set(refused.map(keyOf).filter((k) => mine.has(k) && !kept.has(k)));
        await this.#settle(owner, [...kept], MADE_MS, [...freed]);
      },
      abandon: async () => {
        stop();
        await extend([...mine], UNSURE_MS);
      },
    };
  }
}
