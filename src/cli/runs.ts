// `runs list|show`: what started each batch of work (a webhook delivery, a refresh, a backfill, a
// re-enrichment, a confirm, a review decision) and how its accounts stand, read from the database
// alone (DATABASE_URL, or the embedded one when no `start` holds it): no Redis, no CRM needed.
import { runIdSchema, runJson, runsQuerySchema } from '../api/runs-routes.ts';
import { RUN_KINDS } from '../store/schema.ts';
import { type CommandBody, UsageError } from './command.ts';
import { storeToRead } from './read-store.ts';
import { renderTable } from './table.ts';

const ACTIONS = ['list', 'show'] as const;

/** `2026-03-01 12:00:05` (UTC): a run's times to the second. */
const when = (iso: string | null) => (iso === null ? '' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`);
const countsText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

export const runsCommand: CommandBody = {
  usage: `buyer-intel-sync runs list [--kind <kind>] [--limit 50] [--after <id>]
buyer-intel-sync runs show <id>

list: newest first, a page at a time (the last line names the next page's --after).
show: the run, its accounts with an outcome (while a backfill runs: as many as its progress shows, of
those queued so far) and by the status of their latest outcome (an account a later run enriched
again counts there, not here), and what it changed (fields written, values kept, notes created; each
account's detail: buyer-intel-sync history). Kinds: ${RUN_KINDS.join(', ')}.
Reads DATABASE_URL, or an existing embedded database in PGLITE_DIR when no \`start\` holds it.`,
  options: {
    kind: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
  },
  deadlineMs: 60_000,
  async run(values, positionals) {
    const [action, id, ...extra] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UsageError(`runs needs one of ${ACTIONS.join(', ')}`);
    if (extra.length) throw new UsageError(`unexpected ${extra.join(' ')}`);
    let query: ReturnType<typeof runsQuerySchema.parse> | undefined;
    if (action === 'list') {
      if (id !== undefined) throw new UsageError(`runs list takes no id (runs show ${id})`);
      const parsed = runsQuerySchema.safeParse(
        Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== 'help' && v !== undefined)),
      );
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new UsageError(`--${String(issue?.path[0] ?? 'option')}: ${issue?.message ?? 'invalid'}`);
      }
      query = parsed.data;
    } else {
      if (values.kind !== undefined || values.limit !== undefined || values.after !== undefined)
        throw new UsageError('--kind, --limit and --after go with runs list');
      if (id === undefined) throw new UsageError('runs show needs a run id');
      if (!runIdSchema.safeParse(id).success) throw new UsageError(`"${id}" is not a run id (digits)`);
    }

    const { env, store } = storeToRead(process.env);
    const out = (text: string) => process.stdout.write(`${text}\n`);
    try {
      const { runs, writes } = await store.open();
      if (query) {
        const page = await runs.list(query);
        if (!page.runs.length) {
          // An empty embedded database is most often not the service's: say which one was read.
          const where = env.DATABASE_URL
            ? ''
            : ` in the embedded database at ${env.PGLITE_DIR}; set DATABASE_URL to read your service's database`;
          out(query.after ? 'no more runs' : `no runs yet${where}`);
          return 0;
        }
        out(
          renderTable(
            page.runs
              .map(runJson)
              .map((r) => [r.id, r.kind, when(r.startedAt), r.label, countsText(r.counts)]),
            { head: ['id', 'kind', 'started (UTC)', 'what', 'counts'] },
          ),
        );
        if (page.next) out(`next page: --after ${page.next}`);
        return 0;
      }
      const run = await runs.get(id ?? '');
      if (!run) throw new Error(`no run ${id}`);
      const r = runJson(run);
      const [outcomes, changed] = await Promise.all([runs.outcomeCounts(run.id), writes.runChanges(run.id)]);
      // The number a backfill's progress shows (and the API's `accounts`): each account once its
      // outcome is recorded.
      const recorded = Object.values(outcomes).reduce((a, b) => a + b, 0);
      const queued = r.counts.queued;
      out(
        renderTable([
          ['run', r.id],
          ['kind', r.kind],
          ['what', r.label],
          ['by', r.actor ?? ''],
          ['started (UTC)', when(r.startedAt)],
          ['finished (UTC)', r.finishedAt ? when(r.finishedAt) : '—'],
          ['counts', countsText(r.counts) || '—'],
          ['accounts', `${recorded} with an outcome${queued === undefined ? '' : ` of ${queued} queued`}`],
        ]),
      );
      out(
        renderTable(
          Object.entries(outcomes).map(([status, n]) => [status, n]),
          { head: ['latest outcome', 'accounts'] },
        ),
      );
      out(
        renderTable(
          [
            ['accounts changed', changed.accounts],
            ['fields written', changed.fieldsWritten],
            ['fields refused by the CRM', changed.fieldsFailed],
            ['values kept (policy)', changed.fieldsSkipped],
            ['notes created', changed.notesCreated],
            ['notes removed (undo)', changed.notesRemoved],
          ],
          { head: ['what it changed', 'count'] },
        ),
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
