import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** One CSV export: its file name, its header line, and how to read its rows a page at a time. */
export interface CsvExport<Row> {
  /** The attachment's name, as the browser saves it. */
  filename: string;
  /** The first line, with its CRLF. */
  header: string;
  /** Rows read per query: memory stays this small whatever the export's size. */
  batch: number;
  /** The next page of at most `batch` rows after `last` (the previous page's last row; undefined: the first page). */
  page: (last: Row | undefined) => Promise<Row[]>;
  /** A row as one CSV line (RFC 4180, CRLF-terminated). */
  line: (row: Row) => string;
}

/**
 * Streams a CSV export as a `text/csv` attachment in constant memory: the header, then the rows
 * read by keyset pages and written as they come, until a page comes back short. Not cached, and
 * not sniffed as anything but text (nosniff, as every answer: docs/security.md#security-headers).
 *
 * The next page is asked for before this one is turned into lines, so that the database reads it
 * while this process formats and sends: two pages at most are held at once
 * (docs/performance.md#the-csv-export).
 */
export function streamCsvExport<Row>(reply: FastifyReply, csv: CsvExport<Row>): FastifyReply {
  // A page asked ahead may fail while the stream waits for a slow reader (or after the reader went
  // away), when nothing awaits it yet: marked handled at once, or that failure would be an
  // unhandled rejection, which ends the process. The `await` below still throws it, and the
  // download ends cut short.
  const ask = (last: Row | undefined): Promise<Row[]> => {
    const page = csv.page(last);
    page.catch(() => {});
    return page;
  };
  async function* lines() {
    yield csv.header;
    let next: Promise<Row[]> | undefined = ask(undefined);
    while (next) {
      const rows: Row[] = await next;
      const last = rows[rows.length - 1];
      next = rows.length === csv.batch && last !== undefined ? ask(last) : undefined;
      if (rows.length) yield rows.map(csv.line).join('');
    }
  }
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${csv.filename}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(lines()));
}
