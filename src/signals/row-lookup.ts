// Reads the row a webhook names, in the `BridgeSignal` shape the notes are made from. The API has no
// "get one row" operation and no documented row-id filter, so we list the bridge's rows most recently
// updated first: the row was just added or changed, so it is on the first page, and once the listing
// reaches rows older than the event the row cannot come later.
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { BridgeRow, BridgeSignal } from '../buyer-intel/schemas.ts';
import { IntegrationError } from '../shared/errors.ts';

export type RowLookupClient = Pick<
  BuyerIntelClient,
  'listBridgeRows' | 'getBridge' | 'getBridgeColumnMetadata'
>;

export interface RowLookupOptions {
  /** Default 100 (the API's largest page). */
  pageSize?: number;
  /** Default 5: a bridge rarely changes 500 rows between an event and its job. */
  maxPages?: number;
}

/** The row is not (yet) listed: retrying later may find it. */
export class RowNotFoundError extends IntegrationError {
  constructor(message: string) {
    // Not found *yet*: the event can arrive before the bridge lists its row.
    super(message, { permanent: false });
  }
}

const time = (value: string | null | undefined): number => (value ? Date.parse(value) : Number.NaN);

export async function findRow(
  client: RowLookupClient,
  event: { bridgeId: string; rowId: string; updatedAt: string | null },
  options: RowLookupOptions = {},
): Promise<BridgeRow> {
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 5;
  const eventTime = time(event.updatedAt);
  for (let pageNumber = 1; pageNumber <= maxPages; pageNumber++) {
    const page = await client.listBridgeRows(
      event.bridgeId,
      { sorts: [{ column: 'rowUpdatedAt', direction: 'DESC' }] },
      { pageNumber, pageSize },
    );
    const row = page.result.find((r) => r.rowId === event.rowId);
    if (row) return row;
    const last = page.result.at(-1);
    if (!last || pageNumber >= page.totalPages) break;
    // Sorted newest first: past the event's time, the row is not further down.
    if (time(last.updatedAt) < eventTime) break;
  }
  throw new RowNotFoundError(`row ${event.rowId} is not listed in bridge ${event.bridgeId}`);
}

/** The bridge summary of the signal feeds (name, type, columns) from the bridge operations. */
export async function bridgeSummary(
  client: RowLookupClient,
  bridgeId: string,
): Promise<BridgeSignal['bridge']> {
  const [bridge, metadata] = await Promise.all([
    client.getBridge(bridgeId),
    client.getBridgeColumnMetadata(bridgeId),
  ]);
  return {
    bridgeId: bridge.bridgeId,
    name: bridge.name,
    filterType: bridge.filterType ?? null,
    columns: metadata.flatMap((m) => (m.column ? [m.column] : [])),
  };
}
