// Reading the signal feeds for a digest. "Hotness" is the provider's own ranking (the feeds' `sort=Hotness`,
// always descending); rows carry no score, so the feed's order *is* the rank and we keep it. "New since
// the last digest" is the row's `createdAt` (when the signal reached the feed) inside the window.
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { RowStatus, SignalFilterType } from '../buyer-intel/enums.ts';
import type { BridgeSignal, Page } from '../buyer-intel/schemas.ts';
import { relativePeriodCovering } from './period.ts';
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

/**
 * A reader of buyers' feeds (`listRecentBuyerSignals`, hottest first) for one run: each buyer's feed
 * over a relative period is read once however many accounts or owners ask for it; a failed read is
 * forgotten so the next asker tries again.
 */
export function buyerFeeds(
  buyerIntel: Pick<BuyerIntelClient, 'listRecentBuyerSignals'>,
  settings: { maxPages: number; filterType?: readonly SignalFilterType[]; status?: readonly RowStatus[] },
  clock: Date,
): (buyerId: string, since: Date) => Promise<BridgeSignal[]> {
  const feeds = new Map<string, Promise<BridgeSignal[]>>();
  return (buyerId, since) => {
    const relative = relativePeriodCovering(since, clock);
    const key = `${buyerId}|${relative}`;
    let feed = feeds.get(key);
    if (!feed) {
      feed = readFeed(
        (pageNumber) =>
          buyerIntel.listRecentBuyerSignals({
            buyerId,
            sort: 'Hotness',
            relativeDatePeriodFrom: relative,
            pageNumber,
            pageSize: FEED_PAGE_SIZE,
            ...(settings.filterType?.length ? { filterType: [...settings.filterType] } : {}),
            ...(settings.status?.length ? { status: [...settings.status] } : {}),
          }),
        settings.maxPages,
      ).then((r) => r.signals);
      feed.catch(() => feeds.delete(key));
      feeds.set(key, feed);
    }
    return feed;
  };
}
