// How a digest reads: one line per signal (type, title, date, link), hottest first, as a CRM note body
// (plain text) and as a Slack message (`text` fallback plus Block Kit `blocks`).
import type { BridgeSignal } from '../buyer-intel/schemas.ts';
import type { Period } from './period.ts';

export interface SignalLine {
  rowId: string;
  buyerId: string | null;
  /** The bridge's filter type (RFP, Meeting...) or, without one, the bridge's name. */
  type: string;
  title: string;
  /** YYYY-MM-DD: the row's first date column, else when the row was created. */
  date: string;
  link: string | null;
}

const looksLikeUrl = (v: string) => /^https?:\/\/\S+$/i.test(v);
const MAX_TITLE = 200;

/** When the signal reached the feed: what "new since the last digest" is measured by. */
export function signalTime(signal: BridgeSignal): string | null {
  return signal.row.createdAt ?? signal.row.updatedAt ?? null;
}

export function summarizeSignal(signal: BridgeSignal): SignalLine {
  const { bridge, row } = signal;
  const formatOf = new Map(bridge.columns.map((c) => [c.name, c.fieldFormat?.baseFormat ?? null]));
  let link: string | null = null;
  let dateColumn: string | null = null;
  for (const [name, cell] of Object.entries(row.columns)) {
    const value = typeof cell.value === 'string' ? cell.value.trim() : null;
    if (!value) continue;
    if (!link && looksLikeUrl(value)) link = value;
    else if (!dateColumn && formatOf.get(name) === 'date') dateColumn = value;
  }
  const title = (row.name ?? bridge.name).trim();
  return {
    rowId: row.rowId,
    buyerId: row.buyerId ?? null,
    type: bridge.filterType ?? bridge.name,
    title: title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title,
    date: (dateColumn ?? signalTime(signal) ?? '').slice(0, 10),
    link,
  };
}

const plural = (n: number) => `${n} new signal${n === 1 ? '' : 's'}`;

export function digestTitle(period: Period, total: number, scope?: string): string {
  return `Buyer intel digest${scope ? ` (${scope})` : ''} — ${period.label}: ${plural(total)}`;
}

/** The plain-text body of a digest note: the top signals, hottest first. */
export function digestBody(input: {
  lines: readonly SignalLine[];
  total: number;
  since: Date;
  until: Date;
  /** e.g. the buyer's id, shown so a person can look it up. */
  footer?: string;
}): string {
  const { lines, total } = input;
  const out = [
    `${plural(total)} from ${input.since.toISOString().slice(0, 10)} to ${input.until.toISOString().slice(0, 10)}, hottest first:`,
    '',
  ];
  for (const [i, l] of lines.entries()) {
    out.push(`${i + 1}. [${l.type}] ${l.title} — ${l.date}`);
    if (l.link) out.push(`   ${l.link}`);
  }
  if (total > lines.length) out.push('', `…and ${total - lines.length} more in Buyer Intelligence.`);
  if (input.footer) out.push('', input.footer);
  return out.join('\n');
}

/** Slack mrkdwn needs &, < and > escaped in text it should not read as markup. */
export const slackEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

export function slackMessage(input: {
  title: string;
  lines: readonly SignalLine[];
  total: number;
}): SlackMessage {
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: input.title.slice(0, 150), emoji: false } },
  ];
  for (const [i, l] of input.lines.entries()) {
    const title = l.link ? `<${l.link}|${slackEscape(l.title)}>` : slackEscape(l.title);
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `${i + 1}. *${title}*\n${slackEscape(l.type)} · ${l.date}` },
    });
  }
  if (input.total > input.lines.length)
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `…and ${input.total - input.lines.length} more in Buyer Intelligence.` },
      ],
    });
  const text = [
    input.title,
    ...input.lines.map((l, i) => `${i + 1}. [${l.type}] ${l.title} — ${l.date}${l.link ? ` ${l.link}` : ''}`),
  ].join('\n');
  return { text, blocks };
}
