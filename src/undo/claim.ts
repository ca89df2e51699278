// One runner per undo run: a claim on its row in PostgreSQL (src/store/undo.ts), renewed while the
// runner works. A second process of the same undo says who holds it and stops, or waits for it; a
// killed runner's claim lapses after CLAIM_MS, and the next one resumes the run.
import { hostname } from 'node:os';
import { ActionProblem } from '../review/problem.ts';
import type { Repositories } from '../store/store.ts';

/** How long a claim lasts unless renewed (a killed runner's lapses after this). */
export const CLAIM_MS = 30_000;
const WAIT_POLL_MS = 500;

/** Another process runs this undo now. */
export class UndoRunning extends ActionProblem {
  constructor(runId: string, holder: string, until: Date) {
    super(
      409,
      'undo_running',
      `undo run ${runId} is being run by ${holder} (claim renewed until ${until.toISOString()}): wait for it, or pass --wait`,
    );
  }
}

export async function claimRun(
  undo: Repositories['undo'],
  runId: string,
  holder: string,
  options: { wait?: boolean | undefined; signal?: AbortSignal | undefined },
): Promise<{ finished: boolean }> {
  for (;;) {
    const claim = await undo.claim(runId, holder, CLAIM_MS);
    if (claim.ok) return claim;
    // A runner of this host that was killed (kill -9) leaves its claim: the same command resumes now.
    if (isDeadHere(claim.holder)) {
      const taken = await undo.claim(runId, holder, CLAIM_MS, claim.holder);
      if (taken.ok) return taken;
      continue;
    }
    if (!options.wait || options.signal?.aborted) throw new UndoRunning(runId, claim.holder, claim.until);
    await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
  }
}

/** This runner's name in a claim: its host and pid (and a nonce: two runs in one process differ). */
export const holderName = (nonce: string) => `${hostname()} pid ${process.pid} (${nonce})`;

/** A holder named by holderName on this host whose process no longer exists. */
function isDeadHere(holder: string): boolean {
  const m = /^(.*) pid (\d+) \(/.exec(holder);
  if (!m || m[1] !== hostname()) return false;
  try {
    process.kill(Number(m[2]), 0);
    return false;
  } catch (err) {
    // EPERM: it exists, run by another user.
    return (err as { code?: string }).code === 'ESRCH';
  }
}
