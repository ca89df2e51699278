import type { Page } from './schemas.ts';

export interface PaginateOptions {
  /** Stop after this many items. */
  limit?: number;
}

/**
 * Walks pages 1..totalPages of a paginated list, yielding items. Stops at `limit` items, at the last
 * page, or at an empty page (a list that shrank while we read it).
 */
export async function* paginate<T>(
  fetchPage: (pageNumber: number) => Promise<Page<T>>,
  options: PaginateOptions = {},
): AsyncGenerator<T> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit <= 0) return;
  let yielded = 0;
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await fetchPage(pageNumber);
    for (const item of page.result) {
      yield item;
      if (++yielded >= limit) return;
    }
    if (page.result.length === 0 || pageNumber >= page.totalPages) return;
  }
}
