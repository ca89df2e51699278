// `buyer-intel-sync match-eval <accounts.csv>`: the resolver's scorecard on a customer's own accounts.
// It resolves each account exactly as enrichment does (the same client, rate limit and match settings,
// no match cache) and writes nothing anywhere: it needs the Buyer Intelligence API, not a CRM or Redis.
import { readFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { cachedBuyerIntel } from '../buyer-intel/cache.ts';
import { loadCoreVariables } from '../config/env.ts';
import { AccountsFileError, type EvalAccount, parseAccounts } from '../match-eval/accounts.ts';
import { summaryOf } from '../match-eval/compare.ts';
import { parseDecisions } from '../match-eval/decisions-file.ts';
import { evaluate, type MatchResolver } from '../match-eval/evaluate.ts';
import { openLearning } from '../match-eval/learning.ts';
import { type LearningPassReport, learningPass } from '../match-eval/learning-pass.ts';
import { Resolver } from '../resolve/resolver.ts';
import { buyerIntelClient } from '../service/buyer-intel.ts';
import { failureFacts } from '../shared/errors.ts';
import { type CommandBody, EXIT_FAILURE, numberOption, UsageError } from './command.ts';
import {
  DECISIONS_TENANT,
  decisionsReport,
  type LearningReport,
  learningPassText,
  learningText,
  teachDecisions,
} from './match-eval-learning.ts';
import { expectedBuyers, reportJson, reportText } from './match-eval-report.ts';

const VARIABLES = [
  'BUYER_INTEL_BASE_URL',
  'BUYER_INTEL_TOKEN',
  'BUYER_INTEL_TIMEOUT_MS',
  'BUYER_INTEL_MAX_ATTEMPTS',
  'BUYER_INTEL_RATE_PER_SECOND',
  'BUYER_INTEL_BURST',
  'BUYER_INTEL_CACHE_TTL_MS',
  'BUYER_INTEL_SEARCH_CACHE_TTL_MS',
  'MATCH_ACCEPT_THRESHOLD',
  'MATCH_AMBIGUITY_MARGIN',
] as const;

/**
 * Failures no other account would escape: stop at the first instead of failing every account. A
 * refused token (401), one that may not read (403), an API that cannot be reached (the address is
 * wrong); not a timeout, which states the same no-status transient facts but may be one slow answer.
 */
const isFatal = (err: unknown) => {
  const facts = failureFacts(err);
  return facts?.status === 401 || facts?.status === 403 || facts?.kind === 'unreachable';
};

/** Reads and parses a file of the command; a problem is one line naming the file (exit 2). */
function readFile<T>(path: string, parse: (text: string) => T): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof AccountsFileError) throw new UsageError(`${path} ${err.message}`);
    throw err;
  }
}

/** The API's address without credentials or query, for the report's first line. */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/$/, '')}`;
}

export const matchEvalCommand: CommandBody = {
  usage: `buyer-intel-sync match-eval <accounts.csv> [--decisions FILE] [--learning-pass] [--json]
       [--fail-on-wrong] [--concurrency N]

Resolves every account of the file against the configured Buyer Intelligence API, as enrichment
would (BUYER_INTEL_BASE_URL, BUYER_INTEL_TOKEN, MATCH_ACCEPT_THRESHOLD, MATCH_AMBIGUITY_MARGIN;
no CRM, Redis or database needed, nothing written), and prints how its decisions compare with the
answers in the file: wrong automatic matches, the automatic rate on accounts with one right buyer,
reviews with and without that buyer among the candidates, no-matches, and every miss with the
resolver's reason and its top candidates.

The file's first line names its columns (any order):
  name, state, website   the account as the CRM has it (a cell may be empty)
  expected               the right buyer's id, or review (ambiguous: a person should choose),
                         or nomatch (not a public buyer)
  nces_id, ipeds_id, census_id, buyer_id   optional ids, as text (keep leading zeros)
  city, county, zip, street, email_domain  optional: the account's address and email domain
  id, note               optional: a label for the account, and why it is in the file

  --decisions FILE past decisions (CSV or JSON: name, state, website, buyer_id, buyer_name,
                   verdict confirm|reject; docs/matching.md) applied as the tenant's learned rules
                   before the accounts are evaluated; the report says what they change
  --learning-pass  confirm once each review holding its right buyer, reject a wrong candidate or a
                   match, then evaluate a second account typed the same way in that tenant and in
                   another (docs/matching.md): the share matched to the confirmed buyer, automatic
                   matches of a rejected buyer, the other tenant's changes, calls per account
  --json           the same figures and every account's outcome as JSON on stdout
  --fail-on-wrong  exit 1 when any automatic match is wrong (for CI)
  --concurrency    accounts resolved at once (default 4, 1–32); BUYER_INTEL_RATE_PER_SECOND paces
                   the calls either way`,
  options: {
    json: { type: 'boolean', default: false },
    'fail-on-wrong': { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    decisions: { type: 'string' },
    'learning-pass': { type: 'boolean', default: false },
  },
  async run(values, positionals) {
    const [path, ...extra] = positionals;
    if (!path) throw new UsageError('name the accounts file: match-eval <accounts.csv>');
    if (extra.length) throw new UsageError(`one accounts file at a time (also got ${extra.join(' ')})`);
    const concurrency = numberOption(values, 'concurrency', 4);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
      throw new UsageError('--concurrency must be a whole number from 1 to 32');
    const accounts = readFile(path, parseAccounts);
    const decisionsPath = typeof values.decisions === 'string' ? values.decisions : null;
    if (values.decisions !== undefined && !decisionsPath)
      throw new UsageError('--decisions needs a file: --decisions past-decisions.csv');
    const decisions = decisionsPath ? readFile(decisionsPath, parseDecisions) : null;

    const env = loadCoreVariables(VARIABLES);
    let calls = 0;
    const client = buyerIntelClient(
      {
        baseUrl: env.BUYER_INTEL_BASE_URL,
        token: env.BUYER_INTEL_TOKEN,
        timeoutMs: env.BUYER_INTEL_TIMEOUT_MS,
        maxAttempts: env.BUYER_INTEL_MAX_ATTEMPTS,
        ratePerSecond: env.BUYER_INTEL_RATE_PER_SECOND,
        burst: env.BUYER_INTEL_BURST,
      },
      // Every request the provider sees, retries too: the calls per account the report gives.
      () => {
        calls++;
      },
    );
    const match = {
      acceptThreshold: env.MATCH_ACCEPT_THRESHOLD,
      ambiguityMargin: env.MATCH_AMBIGUITY_MARGIN,
    };
    // A fresh resolver each pass: in-process cache only, so the same name asked twice in a pass costs
    // one call, as in the service, and each pass's calls are those of a run on its own.
    const freshResolver = () =>
      new Resolver({
        client: cachedBuyerIntel(client, {
          ttlMs: env.BUYER_INTEL_CACHE_TTL_MS,
          searchTtlMs: env.BUYER_INTEL_SEARCH_CACHE_TTL_MS,
          maxEntries: 10_000,
        }),
        options: match,
      });

    const bar = process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: 'resolving {bar} {value}/{total} accounts', stream: process.stderr, barsize: 30 },
          cliProgress.Presets.shades_classic,
        )
      : null;
    const pass = async (resolver: MatchResolver, list: readonly EvalAccount[] = accounts) => {
      bar?.start(list.length, 0);
      const from = calls;
      try {
        const evaluation = await evaluate(list, resolver, match.acceptThreshold, {
          concurrency,
          isFatal,
          onResolved: (done) => bar?.update(done),
        });
        return { evaluation, calls: calls - from };
      } finally {
        bar?.stop();
      }
    };
    const plain = await pass(freshResolver());
    let evaluation = plain.evaluation;
    let learning: LearningReport | null = null;
    if (decisions && decisionsPath) {
      const learnt = await openLearning();
      try {
        const taught = await teachDecisions(learnt, decisions);
        const after = await pass(learnt.resolverFor(DECISIONS_TENANT, freshResolver()));
        learning = decisionsReport(decisionsPath, taught, plain, after);
        evaluation = after.evaluation;
      } finally {
        await learnt.close();
      }
    }
    let pass2: LearningPassReport | null = null;
    if (values['learning-pass'] === true) {
      const learnt = await openLearning();
      try {
        pass2 = await learningPass(plain, learnt, pass, freshResolver);
      } finally {
        await learnt.close();
      }
    }
    const { scorecard } = evaluation;
    if (scorecard.errors === scorecard.accounts) {
      const first = evaluation.rows.find((r) => r.error)?.error ?? 'failed';
      throw new Error(`every account failed at the Buyer Intelligence API; the first: ${first}`);
    }
    const buyers = await expectedBuyers(client, evaluation.rows);
    const context = { file: path, api: shownUrl(env.BUYER_INTEL_BASE_URL), match };
    const biCalls = summaryOf(plain.evaluation, plain.calls);
    process.stdout.write(
      values.json === true
        ? `${JSON.stringify({ ...reportJson(evaluation, buyers, context), biCalls: { total: biCalls.biCalls, perAccount: biCalls.biCallsPerAccount }, ...(learning ? { decisions: learning } : {}), ...(pass2 ? { learningPass: pass2 } : {}) }, null, 2)}\n`
        : `${reportText(evaluation, buyers, context)}${learningText(biCalls, learning)}${pass2 ? learningPassText(pass2) : ''}`,
    );
    return values['fail-on-wrong'] === true && scorecard.wrong.total > 0 ? EXIT_FAILURE : 0;
  },
};
