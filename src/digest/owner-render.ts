// How a rep's digest reads: the new signals grouped by the rep's accounts (the account with most new
// signals first; within one, the provider's hotness order), as a plain-text email and as a Slack
// message. Slack allows 50 blocks and 3,000 characters a section: long digests are cut with a count of
// what was left out; the subject's count always covers every new signal.
import { type SignalLine, type SlackMessage, slackEscape } from './render.ts';

export interface OwnerSection {
  accountName: string;
  /** Every new signal on the account; the section lists the first `maxSignals`. */
  total: number;
  lines: readonly SignalLine[];
}

const MAX_SLACK_SECTIONS = 45;
const MAX_SECTION_CHARS = 2_900;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `window` is what windowLabel (period.ts) says: the text names the same days. */
export function ownerSubject(window: string, sections: readonly OwnerSection[]): string {
  const total = sections.reduce((n, s) => n + s.total, 0);
  return `Buyer intel — ${window}: ${plural(total, 'new signal')} on ${sections.length} of your accounts`;
}

export function ownerText(input: {
  name: string | null;
  sections: readonly OwnerSection[];
  /** The days covered, as the subject names them (windowLabel). */
  window: string;
}): string {
  const out = [
    `Hi ${input.name ?? 'there'},`,
    '',
    `New buyer signals on the accounts you own, ${input.window}, hottest first:`,
  ];
  for (const s of input.sections) {
    out.push('', `${s.accountName} (${s.total})`);
    for (const [i, l] of s.lines.entries()) {
      out.push(`  ${i + 1}. [${l.type}] ${l.title} — ${l.date}`);
      if (l.link) out.push(`     ${l.link}`);
    }
    if (s.total > s.lines.length) out.push(`  …and ${s.total - s.lines.length} more`);
  }
  out.push('', 'You receive this because these accounts are yours in the CRM.');
  return out.join('\n');
}

export function ownerSlack(subject: string, sections: readonly OwnerSection[]): SlackMessage {
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: subject.slice(0, 150), emoji: false } },
  ];
  for (const s of sections.slice(0, MAX_SLACK_SECTIONS)) {
    const lines = s.lines.map((l, i) => {
      const title = l.link ? `<${l.link}|${slackEscape(l.title)}>` : slackEscape(l.title);
      return `${i + 1}. ${title} · ${slackEscape(l.type)} · ${l.date}`;
    });
    if (s.total > s.lines.length) lines.push(`…and ${s.total - s.lines.length} more`);
    const text = `*${slackEscape(s.accountName)}* (${s.total})\n${lines.join('\n')}`;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, MAX_SECTION_CHARS) } });
  }
  if (sections.length > MAX_SLACK_SECTIONS)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `…and ${sections.length - MAX_SLACK_SECTIONS} more accounts.` }],
    });
  const text = [
    subject,
    ...sections.map((s) => `${s.accountName}: ${s.lines.map((l) => l.title).join('; ')}`),
  ].join('\n');
  return { text: text.slice(0, 3_000), blocks };
}
