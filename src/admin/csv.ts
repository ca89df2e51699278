// CSV for the console's exports: every cell quoted per RFC 4180, and a cell a spreadsheet would run as
// a formula (starting = + - @, or a tab/CR) gets a leading ' so an exported CRM value cannot execute.
// An export streams: a keyset page of rows at a time, each written before the next is read, waiting
// for the socket to drain, so memory holds one page however many rows there are.
import type { Response } from 'express';
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export const csvLine = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Writes a chunk and waits for 'drain' when the socket's buffer is full: memory stays bounded. */
export function writeWithBackpressure(res: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: unknown) => {
      res.off('drain', done);
      res.off('close', done);
      res.off('error', done);
      err instanceof Error ? reject(err) : resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    res.once('error', done);
  });
}

/** The pages of a keyset listing, read one after the other as the consumer asks for them. */
export async function* keysetPages<T>(
  read: (after: string | undefined) => Promise<{ rows: readonly T[]; next: string | null }>,
): AsyncGenerator<readonly T[]> {
  let after: string | undefined;
  do {
    const page = await read(after);
    yield page.rows;
    after = page.next ?? undefined;
  } while (after);
}

/**
 * Sends a CSV download: the header, then each page's lines as it comes. The first page is read before
 * anything is sent, so a store that cannot be read is still the caller's error to answer (503); once
 * the first byte is out a failure can only cut the download short (the socket is destroyed, so the
 * file is visibly incomplete rather than silently short).
 */
export async function streamCsv<T>(
  res: Response,
  filename: string,
  header: readonly string[],
  pages: AsyncIterable<readonly T[]>,
  cells: (row: T) => readonly unknown[],
): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  // One variable for every page, so the first is let go once written, like the others.
  let page = await iterator.next();
  res.status(200);
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader('content-disposition', `attachment; filename="${filename}"`);
  res.setHeader('cache-control', 'no-store');
  const lines = (rows: readonly T[]) => rows.map((r) => csvLine(cells(r))).join('');
  try {
    await writeWithBackpressure(res, csvLine(header) + (page.done ? '' : lines(page.value)));
    while (!page.done) {
      page = await iterator.next();
      if (res.destroyed) {
        await iterator.return?.();
        return;
      }
      const chunk = page.done ? '' : lines(page.value);
      if (chunk) await writeWithBackpressure(res, chunk);
    }
    res.end();
  } catch (err) {
    res.destroy(err instanceof Error ? err : undefined);
  }
}
