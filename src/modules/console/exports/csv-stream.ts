import type { Response } from 'express';
import { csvHeader, csvRow, type ExportColumn } from '../domain/csv';

/**
 * Streams a CSV export as the response (pure of the framework, so it is tested on a real server without it):
 * `text/csv`, the header line, then each batch's lines, a batch read (`batches`) only once the previous one is
 * written and the socket has taken it (the client's pace). The first batch is read before anything is sent,
 * so a failure there is the caller's (an error envelope); a later one ends the response without its last chunk
 * (a broken transfer, never a short file that looks complete) and is reported to `failed`.
 *
 * - HEAD: the headers only, nothing read (a HEAD body is thrown away as it is written, so nothing would pace
 *   the reads: the whole export would be read for nothing).
 * - A client gone (before the first batch was read, or at any write): the reads stop, the generator is closed,
 *   and the returned promise settles.
 */
export async function streamCsv(
  res: Response,
  columns: readonly ExportColumn[],
  fileName: string,
  batches: () => AsyncGenerator<object[]>,
  failed: (rows: number, error: unknown) => void,
): Promise<void> {
  const headers = () => {
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
  };
  if (res.req.method === 'HEAD') {
    headers();
    res.end();
    return;
  }
  const reading = batches();
  const first = await reading.next();
  headers();
  let rows = 0;
  try {
    let open = await write(res, csvHeader(columns));
    let batch = first;
    while (open && !batch.done) {
      open = await write(res, batch.value.map((o) => csvRow(columns, o)).join(''));
      rows += batch.value.length;
      if (open) batch = await reading.next();
    }
    if (open) res.end();
    else await reading.return(undefined);
  } catch (error) {
    failed(rows, error);
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Writes a chunk, waiting for the socket to drain when its buffer is full; false once the client is gone (the
 * response closed before, or while waiting), so the caller stops reading. The listeners go with each wait.
 */
function write(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (open: boolean) => {
      res.off('drain', drained);
      res.off('close', closed);
      resolve(open);
    };
    const drained = () => settle(true);
    const closed = () => settle(false);
    res.once('drain', drained);
    res.once('close', closed);
  });
}
