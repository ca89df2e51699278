// docs/alerts.example.yml, the example Prometheus rules, read as data against the service itself: every
// bis_* metric an alert reads is one the service registers (a renamed metric would leave an alert that
// never fires), every queue it names is one of ours, and every alert points at a runbook of
// docs/operations.md that names the same metric.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BACKFILL_QUEUE, ENRICH_QUEUE } from '../../queues/enrich-queue.ts';
import { Metrics } from '../../src/observe/metrics.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; runbook?: string };
}
/** Prometheus's promtool (PROMTOOL, else on PATH), or none: its checks are skipped then. */
function promtool(): string | undefined {
  const bin = process.env.PROMTOOL ?? 'promtool';
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
    return bin;
  } catch {
    return undefined;
  }
}
const PROMTOOL = promtool();

const rules = (parse(read('docs/alerts.example.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);

/** What other exporters provide (Prometheus's own `up`, postgres_exporter's pg_*), named as theirs. */
const EXTERNAL = ['up', 'pg_up', 'pg_stat_activity_count', 'pg_settings_max_connections'];

/** Every series name a scrape of the service can carry (a histogram's three). */
function registered(): Set<string> {
  const names = new Set<string>();
  for (const metric of new Metrics(() => []).registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b(bis_[a-z0-9_]+|pg_[a-z0-9_]+|up)\b(?=\s*[{[)]|\s|$)/g)].map((m) => m[1] ?? '');

/** The "Alerts and runbooks" section: each `### ` heading's GitHub anchor and its text. */
function runbooks(): Map<string, string> {
  const doc = read('docs/operations.md');
  const start = doc.indexOf('\n## Alerts and runbooks\n');
  expect(start, 'docs/operations.md has an "## Alerts and runbooks" section').toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const books = new Map<string, string>();
  for (const part of section.split('\n### ').slice(1)) {
    const heading = part.slice(0, part.indexOf('\n'));
    const anchor = heading
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replaceAll(' ', '-');
    books.set(anchor, part);
  }
  return books;
}

describe('docs/alerts.example.yml', () => {
  it('reads only metrics the service registers, or other exporters’ it names as theirs', () => {
    const ours = registered();
    const used = new Set(rules.flatMap((r) => metricsIn(r.expr)));
    expect(used.size).toBeGreaterThan(5);
    const unknown = [...used].filter((name) => !ours.has(name) && !EXTERNAL.includes(name));
    expect(unknown).toEqual([]);
    // Redis's memory is the service's own (a managed Redis rarely has an exporter beside it).
    for (const name of [
      'bis_redis_used_memory_bytes',
      'bis_redis_maxmemory_bytes',
      'bis_redis_evicted_keys_total',
    ])
      expect(used).toContain(name);
  });

  it('names only queues the service has', () => {
    const queues = new Set(
      rules.flatMap((r) =>
        [...r.expr.matchAll(/queue=~?"([^"]+)"/g)].flatMap((m) => (m[1] ?? '').split('|')),
      ),
    );
    expect([...queues].filter((q) => q !== ENRICH_QUEUE && q !== BACKFILL_QUEUE)).toEqual([]);
    expect(queues).toContain(ENRICH_QUEUE);
  });

  it('gives every alert a severity, a summary and a runbook that names the metrics it reads', () => {
    const books = runbooks();
    for (const rule of rules) {
      expect(rule.labels?.severity, rule.alert).toMatch(/^(warning|critical)$/);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      const anchor = rule.annotations?.runbook?.match(/^docs\/operations\.md#([a-z0-9-]+)$/)?.[1];
      expect(anchor, `${rule.alert}: runbook`).toBeDefined();
      const book = books.get(anchor ?? '');
      expect(book, `${rule.alert}: no runbook #${anchor} in docs/operations.md`).toBeDefined();
      for (const name of metricsIn(rule.expr))
        expect(book, `${rule.alert}'s runbook names ${name}`).toContain(`\`${name}`);
    }
  });

  it('has a runbook for each alert a team should set, each with an alert rule', () => {
    const books = runbooks();
    for (const anchor of [
      'enrich-backlog-growing',
      'failed-jobs',
      'no-consumer',
      'redis-memory',
      'postgresql',
      'provider-throttling',
    ])
      expect([...books.keys()]).toContain(anchor);
    const pointed = new Set(rules.map((r) => r.annotations?.runbook?.split('#')[1]));
    expect([...books.keys()].filter((a) => !pointed.has(a))).toEqual([]);
  });

  it.skipIf(!PROMTOOL)(
    `parses, and fires as its tests say, for promtool (${PROMTOOL ?? 'not installed'})`,
    () => {
      const run = (...args: string[]) =>
        execFileSync(PROMTOOL as string, args, { cwd: fileURLToPath(ROOT), encoding: 'utf8', stdio: 'pipe' });
      expect(run('check', 'rules', 'docs/alerts.example.yml')).toContain(
        `SUCCESS: ${rules.length} rules found`,
      );
      expect(run('test', 'rules', 'test/fixtures/alerts/alerts.promtool.yml')).toContain('SUCCESS');
    },
  );
});
