// `history`: what we changed on one account (each field old → new with the policy's decision, the notes
// we created, by which run), and `history prune --before DATE` (with a count first, deleting only with
// --yes). Read from the database alone (DATABASE_URL, or the embedded one when no `start` holds it).
import { z } from 'zod';
import { canonicalAccountId, isCrmKind } from '../../connectors/registry.ts';
import {
  accountHistoryQuerySchema,
  changeSource,
  changesOf,
  decisionWords,
  learnedJson,
} from '../api/history-routes.ts';
import { type CommandBody, UsageError } from './command.ts';
import { crmChoices } from './crm-option.ts';
import { storeToRead } from './read-store.ts';
import { renderTable } from './table.ts';

/** `2026-03-01 12:00:05` (UTC). */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
const value = (v: string | null) => (v === null ? '∅' : v.length > 60 ? `${v.slice(0, 59)}…` : v);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A day (midnight UTC) or a date-time with its offset. */
const beforeSchema = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/,
    'must be a date: YYYY-MM-DD',
  )
  .refine((s) => !Number.isNaN(Date.parse(s)), 'is not a date');

function valid<T>(schema: z.ZodType<T, unknown>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(`--${String(issue?.path[0] ?? 'option')}: ${issue?.message ?? 'invalid'}`);
}

type LearnedRow = Parameters<typeof learnedJson>[0] & { tenant: string };

/**
 * What a person's decisions on the account taught its tenant, in the words the admin page uses: each
 * rule with when it was made and whether it still holds (an undo takes it back).
 */
export function learnedWords(rows: readonly LearnedRow[]): string {
  const tenants = new Set(rows.map((r) => r.tenant));
  const lines = rows.map((row) => {
    const r = learnedJson(row);
    const now = r.undoneAt ? `taken back ${when(r.undoneAt)}` : 'holds for the next account typed this way';
    const tenant = tenants.size > 1 ? ` [tenant ${row.tenant}]` : '';
    return `  ${when(r.at)}${tenant}  ${r.rule} — ${now}`;
  });
  return [`what a person's decisions taught (UTC):`, ...lines].join('\n');
}

export const historyCommand: CommandBody = {
  usage: `buyer-intel-sync history --crm ${crmChoices()} --account <id> [--tenant <id>] [--limit 50] [--after <cursor>]
buyer-intel-sync history prune --before YYYY-MM-DD [--yes]

history: newest first, each field we wrote (or a policy kept from us) with its old and new value, the
decision and the run or trigger, and each note we created (the last line names the next page's
--after); above them, the rules a person's confirm or reject on the account taught its tenant, "taken
back <date>" once undone. Without --tenant, the account of that id in every tenant.
prune: deletes what was recorded before the date (midnight UTC); without --yes it only counts.
Reads DATABASE_URL, or an existing embedded database in PGLITE_DIR when no \`start\` holds it.`,
  options: {
    crm: { type: 'string' },
    account: { type: 'string' },
    tenant: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
    before: { type: 'string' },
    yes: { type: 'boolean', default: false },
  },
  deadlineMs: 600_000,
  async run(values, positionals) {
    const [action, ...extra] = positionals;
    if (action !== undefined && action !== 'prune')
      throw new UsageError(`unexpected ${action} (history, or history prune)`);
    if (extra.length) throw new UsageError(`unexpected ${extra.join(' ')}`);
    const out = (text: string) => process.stdout.write(`${text}\n`);

    if (action === 'prune') {
      for (const name of ['crm', 'account', 'tenant', 'limit', 'after'])
        if (values[name] !== undefined)
          throw new UsageError(`--${name} goes with history, not history prune`);
      if (values.before === undefined) throw new UsageError('--before YYYY-MM-DD is required');
      const text = valid(z.strictObject({ before: beforeSchema }), { before: values.before }).before;
      const before = new Date(text);
      const { store } = storeToRead(process.env);
      try {
        const { writes } = await store.open();
        const since = `recorded before ${before.toISOString()}`;
        if (values.yes !== true) {
          const n = await writes.countBefore(before);
          out(
            `would delete ${plural(n.fieldWrites, 'field write')} and ${plural(n.notes, 'note record')} ${since}; run again with --yes`,
          );
          return 0;
        }
        const n = await writes.prune(before);
        out(`deleted ${plural(n.fieldWrites, 'field write')} and ${plural(n.notes, 'note record')} ${since}`);
        return 0;
      } finally {
        await store.close();
      }
    }

    if (values.before !== undefined || values.yes === true)
      throw new UsageError('--before and --yes go with history prune');
    if (typeof values.crm !== 'string' || !isCrmKind(values.crm))
      throw new UsageError(`--crm ${crmChoices()} is required`);
    const crm = values.crm;
    const raw = typeof values.account === 'string' ? values.account.trim() : '';
    if (!raw) throw new UsageError('--account <CRM record id> is required');
    const accountId = canonicalAccountId(crm, raw);
    if (accountId === undefined)
      throw new UsageError(`--account: ${raw.slice(0, 64)} is not a ${crm} account id`);
    const query = valid(
      accountHistoryQuerySchema,
      Object.fromEntries(
        Object.entries({ tenant: values.tenant, limit: values.limit, after: values.after }).filter(
          ([, v]) => v !== undefined,
        ),
      ),
    );
    const { store } = storeToRead(process.env);
    try {
      const { writes, learned } = await store.open();
      const page = await writes.forAccount(
        { crm, tenant: query.tenant, accountId },
        { limit: query.limit, after: query.after },
      );
      // The rules go above the first page only: a later page (--after) continues the changes.
      const rules = query.after ? [] : await learned.forAccount({ crm, tenant: query.tenant, accountId });
      const changes = changesOf(page.events);
      if (!changes.length && !rules.length) {
        out(query.after ? 'no more history' : `nothing recorded for ${crm} account ${accountId}`);
        return 0;
      }
      if (rules.length) {
        out(learnedWords(rules));
        if (!changes.length) {
          out(`no changes recorded for ${crm} account ${accountId}`);
          return 0;
        }
        out('what we changed:');
      }
      const tenants = new Set(changes.map((c) => c.tenant));
      const rows = changes.flatMap((c) => {
        const lead = [when(c.at), changeSource(c), ...(tenants.size > 1 ? [c.tenant] : [])];
        const blank = lead.map(() => '');
        return [
          ...c.fields.map((f) => [f.field, `${value(f.old)} → ${value(f.new)}`, decisionWords(f)]),
          ...c.notes.map((n) => ['note', value(n.title), `${n.action} (${n.noteId})`]),
        ].map((cells, i) => [...(i === 0 ? lead : blank), ...cells]);
      });
      out(
        renderTable(rows, {
          head: [
            'when (UTC)',
            'run',
            ...(tenants.size > 1 ? ['tenant'] : []),
            'field',
            'old → new',
            'decision',
          ],
        }),
      );
      if (page.next) out(`next page: --after ${page.next}`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
