// The console's frame: one navigation bar, one stylesheet and the date and name helpers every page
// uses, so a sales-ops lead moves between the pages the same way and reads dates the same way on each.
// Pages pass their own body (already escaped with esc) and at most one inline script; nonceOnPages
// (protect.ts) gives the <script> and <style> tags this response's CSP nonce.
import { esc } from './html.ts';

export const CONSOLE_PAGES = [
  { key: 'dashboard', href: '/admin/dashboard', label: 'Dashboard' },
  { key: 'runs', href: '/admin/runs', label: 'Runs' },
  { key: 'accounts', href: '/admin/accounts', label: 'Accounts' },
  { key: 'review', href: '/admin/review', label: 'Review' },
  { key: 'mapping', href: '/admin/mapping', label: 'Mapping' },
  { key: 'connections', href: '/admin/connections', label: 'Connections' },
  { key: 'queues', href: '/admin/queues', label: 'Queues' },
] as const;
export type ConsolePage = (typeof CONSOLE_PAGES)[number]['key'];

/**
 * The console's stylesheet. Colours meet WCAG AA contrast on white (axe-core checks every page); the
 * widths hold at 1024 px, tables scroll inside their own box instead of widening the page.
 */
export const CONSOLE_CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#fff}
header.nav{display:flex;gap:4px;align-items:center;background:#1d2433;padding:0 16px;flex-wrap:wrap}
header.nav .brand{color:#fff;font-weight:600;margin-right:16px;padding:10px 0}
header.nav a{color:#e6e9ef;text-decoration:none;padding:10px 10px;border-bottom:3px solid transparent}
header.nav a[aria-current=page]{color:#fff;border-bottom-color:#7fb2ff;font-weight:600}
header.nav a:focus-visible,a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #2f6fde;outline-offset:2px}
main{padding:16px 24px;max-width:1400px}
h1{font-size:20px;margin:4px 0 8px}h2{font-size:16px;margin:16px 0 8px}
p.summary{color:#4a5263;margin:0 0 12px}
small,.muted{color:#4a5263}
a{color:#1a55b8}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #dfe3ea;padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f3f5f8;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
ul,ol{margin:4px 0;padding-left:18px}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;background:#e3e6ec;color:#1d2433}
.badge.enriched,.badge.ok{background:#d3f0de}.badge.needs_review,.badge.warn{background:#ffefb8}
.badge.error,.badge.fail{background:#f9d3d3}.badge.no_match{background:#e6e9ee}
button{font:inherit;font-size:13px;cursor:pointer;padding:3px 10px;border:1px solid #8a93a6;border-radius:4px;background:#fff;color:#1d2433}
button.primary{background:#1a55b8;border-color:#1a55b8;color:#fff}
input,select{font:inherit;font-size:13px;padding:3px 6px;border:1px solid #8a93a6;border-radius:4px}
form.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin:0 0 12px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:#4a5263}
nav.pager{display:flex;gap:12px;align-items:center;margin:12px 0}
#flash{min-height:20px;color:#0a6b2b}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 16px}
.card{border:1px solid #dfe3ea;border-radius:6px;padding:10px 14px;min-width:160px}
.card .value{font-size:22px;font-weight:600}
`;

/** A whole console page: the navigation with `active` marked, the page's body and its script. */
export function renderConsolePage(page: {
  title: string;
  active?: ConsolePage;
  body: string;
  script?: string;
  /** Extra style rules the page needs beyond the console's own. */
  css?: string;
  /** Scripts served from our own origin (the CSP allows 'self'), e.g. a charting library. */
  scripts?: readonly string[];
}): string {
  const nav = CONSOLE_PAGES.map(
    (p) => `<a href="${p.href}"${p.key === page.active ? ' aria-current="page"' : ''}>${p.label}</a>`,
  ).join('');
  const external = (page.scripts ?? []).map((src) => `<script src="${esc(src)}" defer></script>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(page.title)} — Buyer Intel Sync</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${CONSOLE_CSS}${page.css ?? ''}</style>${external}</head>
<body>
<header class="nav"><span class="brand">Buyer Intel Sync</span><nav aria-label="Console">${nav}</nav></header>
<main>
${page.body}
</main>
${page.script ? `<script>${page.script}</script>` : ''}
</body></html>`;
}

/**
 * A time as a person reads it: "2 Dec 2026, 10:21 UTC" (UTC, so two people in different places
 * quote the same time), with the ISO value kept in the <time> element's datetime.
 */
export function readableTime(at: Date | string | null | undefined): string {
  if (at === null || at === undefined) return '';
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return esc(at);
  const text = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    hour12: false,
  }).format(date);
  return `<time datetime="${date.toISOString()}">${esc(text)} UTC</time>`;
}

/** "51–100 of 337": the rows a page shows out of the total that match. */
export function rangeLabel(offset: number, shown: number, total: number): string {
  if (total === 0 || shown === 0) return `0 of ${total.toLocaleString('en-US')}`;
  const fmt = (n: number) => n.toLocaleString('en-US');
  return `${fmt(offset + 1)}–${fmt(offset + shown)} of ${fmt(total)}`;
}
