// The dashboard's HTML: every chart a <canvas> described in its data-chart attribute (drawn by
// dashboard-script.ts with chart.js, both served from our origin) beside a table of the same numbers,
// so nothing is only in a picture. Every value escaped.
import { crmOf, isCrmKind } from '../../connectors/registry.ts';
import { spanOf } from './connections-page.ts';
import { type DashboardData, matchRateOf, STATUSES, type Status } from './dashboard-data.ts';
import { esc } from './html.ts';
import { readableTime, renderConsolePage } from './layout.ts';

const COLOURS: Record<Status, string> = {
  enriched: '#2e7d4f',
  needs_review: '#c98a00',
  no_match: '#6b7385',
  error: '#c0392b',
};
const PALETTE = ['#1a55b8', '#2e7d4f', '#c98a00', '#8e44ad', '#c0392b', '#16808a'];
const n = (v: number) => v.toLocaleString('en-US');
const words = (s: string) => s.replace('_', ' ');
const labelOf = (crm: string) => (isCrmKind(crm) ? crmOf(crm).label : crm);
/** An upstream API as metrics name it (`buyer_intel`, or a CRM's kind), for people. */
const apiLabel = (api: string) => (api === 'buyer_intel' ? 'Buyer Intelligence' : labelOf(api));

interface ChartSpec {
  type: 'bar' | 'line' | 'doughnut';
  labels: string[];
  datasets: { label: string; data: number[]; color: string | string[] }[];
  stacked?: boolean;
  yTitle?: string;
}

/** A chart's canvas; `summary` is what a screen reader hears for it (the table has the numbers). */
const chart = (id: string, summary: string, spec: ChartSpec) =>
  `<div class="chart-box"><canvas id="${id}" role="img" aria-label="${esc(summary)}" data-chart="${esc(JSON.stringify(spec))}"></canvas></div>`;

const table = (id: string, caption: string, head: string[], rows: (string | number)[][]) =>
  `<div class="scroll"><table id="${id}" class="figures"><caption>${esc(caption)}</caption><thead><tr>${head
    .map((h, i) => `<th scope="col"${i ? ' class="num"' : ''}>${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => (i ? `<td class="num">${typeof c === 'number' ? n(c) : esc(c)}</td>` : `<th scope="row">${esc(c)}</th>`)).join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;

function statusPanel(d: DashboardData): string {
  const labels = d.byTenant.map((t) => `${labelOf(t.crm)} ${t.tenant}`);
  const rows = d.byTenant.map((t, i) => [
    labels[i] ?? '',
    ...STATUSES.map((s) => t[s]),
    ((r) => (r === null ? '—' : `${r}%`))(matchRateOf(t)),
  ]);
  return `<section class="panel wide" aria-labelledby="status-h"><h2 id="status-h">Accounts by status, per CRM and tenant</h2>
${chart(
  'chart-status',
  `Stacked bars of accounts per status for ${labels.length} tenants; the numbers are in the table below`,
  {
    type: 'bar',
    labels,
    stacked: true,
    yTitle: 'accounts',
    datasets: STATUSES.map((s) => ({
      label: words(s),
      data: d.byTenant.map((t) => t[s]),
      color: COLOURS[s],
    })),
  },
)}
${table('by-tenant', 'Accounts by their latest outcome', ['Tenant', ...STATUSES.map(words), 'automatic match'], rows)}</section>`;
}

function backlogPanel(d: DashboardData, now: Date): string {
  const b = d.backlog;
  const ages: [string, number][] = [
    ['since today', b.ages.today],
    ['1–6 days', b.ages.underWeek],
    ['7–29 days', b.ages.underMonth],
    ['30 days or more', b.ages.older],
  ];
  const age = (at: Date | null) =>
    at ? `${readableTime(at)} (${spanOf(now.getTime() - at.getTime())} ago)` : '—';
  return `<section class="panel" aria-labelledby="backlog-h"><h2 id="backlog-h">Review backlog and its age</h2>
<p><strong id="backlog-waiting">${n(b.waiting)}</strong> ${b.waiting === 1 ? 'account waits' : 'accounts wait'} for a person. Oldest: <span id="backlog-oldest">${age(b.oldest)}</span>; half of them since <span id="backlog-median">${b.medianDay ? esc(new Date(`${b.medianDay}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })) : '—'}</span> or later (the median, in UTC days). <a href="/admin/review">Review them</a></p>
${chart(
  'chart-backlog',
  `Bars of accounts waiting for review by how long: ${ages.map(([k, v]) => `${k} ${v}`).join(', ')}`,
  {
    type: 'bar',
    labels: ages.map(([k]) => k),
    yTitle: 'accounts',
    datasets: [{ label: 'accounts waiting', data: ages.map(([, v]) => v), color: COLOURS.needs_review }],
  },
)}
${table('backlog-ages', 'Accounts waiting, by the UTC day of their outcome', ['Waiting', 'accounts'], ages)}</section>`;
}

function signalsPanel(d: DashboardData): string {
  const weeks = d.signalsPerWeek;
  const label = (w: string) =>
    new Date(`${w}T00:00:00Z`).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'short',
      timeZone: 'UTC',
    });
  const total = weeks.reduce((a, w) => a + w.n, 0);
  return `<section class="panel" aria-labelledby="signals-h"><h2 id="signals-h">Signal notes written per week</h2>
<p><strong id="signals-total">${n(total)}</strong> in the last 12 weeks (weeks from Monday, UTC).</p>
${chart('chart-signals', `Bars of signal notes written per week over 12 weeks, ${total} in all`, {
  type: 'bar',
  labels: weeks.map((w) => label(w.week)),
  yTitle: 'notes',
  datasets: [{ label: 'notes written', data: weeks.map((w) => w.n), color: PALETTE[0] ?? '#1a55b8' }],
})}
<details><summary>The weeks' numbers</summary>${table(
    'signals-weeks',
    'Signal notes per week',
    ['Week of', 'notes'],
    weeks.map((w) => [label(w.week), w.n]),
  )}</details></section>`;
}

function budgetPanel(d: DashboardData): string {
  const p = d.provider;
  const pace =
    p === null
      ? 'unknown (Redis did not answer)'
      : `${esc(String(p.ratePerSecond))}${p.configured ? ` of ${esc(String(p.configured))}` : ''} requests/s in use${p.throttled ? ' — <strong>the provider is throttling us</strong>' : ', the full rate'}`;
  const hours = d.usage ?? [];
  const apis = [
    ...new Set(
      hours
        .flatMap((h) => Object.keys(h.counts))
        .filter((k) => k.startsWith('calls:'))
        .map((k) => k.slice(6)),
    ),
  ].sort();
  const sum = (name: string) => hours.reduce((a, h) => a + (h.counts[name] ?? 0), 0);
  const parked = (h: { counts: Record<string, number> }) =>
    Object.entries(h.counts)
      .filter(([k]) => k.startsWith('parked:'))
      .reduce((a, [, v]) => a + v, 0);
  const hourLabels = hours.map((h) => `${h.hour.slice(11, 13)}:00`);
  const waits = sum('waits:buyer_intel');
  const limits = (d.crmLimits ?? []).map((s) => [
    `${labelOf(s.crm)} ${s.tenant}`,
    s.window ? `${n(s.window.remaining)} of ${n(s.window.max)} per ${s.window.intervalMs / 1000} s` : '—',
    s.daily
      ? `${n(s.daily.remaining)} of ${n(s.daily.limit)} (${Math.round(((s.daily.limit - s.daily.remaining) / Math.max(1, s.daily.limit)) * 100)}% used)`
      : '—',
  ]);
  return `<section class="panel wide" aria-labelledby="budget-h"><h2 id="budget-h">Provider and CRM budget use</h2>
<p>Buyer Intelligence pace now: <span id="provider-pace">${pace}</span>. Last 24 hours, every process: <span id="provider-waits">${n(waits)}</span> provider requests waited for their slot (${waits ? `${n(Math.round(sum('wait-ms:buyer_intel') / waits))} ms on average` : 'none'}); queues parked for a limit ${n(hours.reduce((a, h) => a + parked(h), 0))} times.</p>
<div class="pair">${chart(
    'chart-calls',
    `Upstream calls per hour over 24 hours by API: ${apis.map((a) => `${apiLabel(a)} ${sum(`calls:${a}`)}`).join(', ') || 'none'}`,
    {
      type: 'bar',
      labels: hourLabels,
      stacked: true,
      yTitle: 'calls per hour',
      datasets: apis.map((a, i) => ({
        label: apiLabel(a),
        data: hours.map((h) => h.counts[`calls:${a}`] ?? 0),
        color: PALETTE[i % PALETTE.length] ?? '#1a55b8',
      })),
    },
  )}
${chart('chart-throttling', 'Lines of 429 answers, provider waits and queue parks per hour over 24 hours', {
  type: 'line',
  labels: hourLabels,
  yTitle: 'per hour',
  datasets: [
    ...apis.map((a, i) => ({
      label: `429s ${apiLabel(a)}`,
      data: hours.map((h) => h.counts[`429:${a}`] ?? 0),
      color: PALETTE[(i + 3) % PALETTE.length] ?? '#c0392b',
    })),
    { label: 'provider waits', data: hours.map((h) => h.counts['waits:buyer_intel'] ?? 0), color: '#c98a00' },
    { label: 'queue parks', data: hours.map(parked), color: '#6b7385' },
  ],
})}</div>
${table(
  'usage-24h',
  'Last 24 hours per API',
  ['API', 'calls', '429 answers'],
  apis.map((a) => [apiLabel(a), sum(`calls:${a}`), sum(`429:${a}`)]),
)}
${table('crm-limits', "Each CRM tenant's limits at its last answer", ['Tenant', 'short window left', 'daily allocation left'], limits.length ? limits : [['no CRM has reported its limits yet', '—', '—']])}</section>`;
}

const CSS = `.panels{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:16px}
.panel{border:1px solid #dfe3ea;border-radius:6px;padding:8px 14px 12px;min-width:0}.panel.wide{grid-column:1/-1}
.chart-box{position:relative;height:240px;margin:8px 0;min-width:0}.chart-box canvas{max-width:100%}.pair{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}
table.figures caption{text-align:left;font-weight:600;padding:6px 0;color:#4a5263}table.figures{margin-bottom:8px}
@media (max-width:1200px){.panels,.pair{grid-template-columns:minmax(0,1fr)}}`;

export function renderDashboard(d: DashboardData, now = new Date()): string {
  const cards = STATUSES.map(
    (s) =>
      `<div class="card"><div class="value" data-status="${s}">${n(d.total[s])}</div>${esc(words(s))}</div>`,
  ).join('');
  return renderConsolePage({
    title: 'Dashboard',
    active: 'dashboard',
    css: CSS,
    scripts: ['/admin/assets/chart.umd.min.js', '/admin/assets/dashboard.js'],
    body: `<h1>Dashboard</h1>
<p class="summary">Automatic-match rate: accounts enriched without a person, out of those matched, sent to review or without a match: <strong id="match-rate">${d.automaticMatchRate === null ? '—' : `${d.automaticMatchRate}%`}</strong>. Hover a chart for its numbers; each table beside it has them too.</p>
<div class="cards">${cards}</div>
<div class="panels">${statusPanel(d)}${backlogPanel(d, now)}${signalsPanel(d)}${budgetPanel(d)}</div>`,
  });
}
