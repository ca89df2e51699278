// CSV for the console's exports: every cell quoted per RFC 4180, and a cell a spreadsheet would run as
// a formula (starting = + - @, or a tab/CR) gets a leading ' so an exported CRM value cannot execute.
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
