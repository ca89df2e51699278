// Reading the signal feeds for a digest. "Hotness" is the provider's own ranking (the feeds' `sort=Hotness`,
// always descending); rows carry no score, so the feed's order *is* the rank and we keep it. "New since
// the last digest" is the row's `createdAt` (when the signal reached the feed) inside the window.
import type { BridgeSignal, Page } from '../buyer-intel/schemas.ts';
import { signalTime } from './render.ts';

export const FEED_PAGE_SIZE = 100;

/** Every signal of the feed (up to `maxPages` pages), hottest first, each row once. */
export async function readFeed(
  fetchPage: (pageNumber: number) => Promise<Page<BridgeSignal>>,
  maxPages: number,
): Promise<{ signals: BridgeSignal[]; truncated: boolean }> {
  const seen = new Set<string>();
  const signals: BridgeSignal[] = [];
  for (let pageNumber = 1; pageNumber <= maxPages; pageNumber++) {
    const page = await fetchPage(pageNumber);
    for (const s of page.result) {
      if (seen.has(s.row.rowId)) continue;
      seen.add(s.row.rowId);
      signals.push(s);
    }
    if (!page.result.length || pageNumber >= page.totalPages) return { signals, truncated: false };
  }
  return { signals, truncated: true };
}

/** The signals that reached the feed in (since, until], in the feed's (hotness) order. */
export function inWindow(signals: readonly BridgeSignal[], since: Date, until: Date): BridgeSignal[] {
  const from = since.getTime();
  const to = until.getTime();
  return signals.filter((s) => {
    const at = Date.parse(signalTime(s) ?? '');
    return Number.isFinite(at) && at > from && at <= to;
  });
}
