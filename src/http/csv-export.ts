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
 * not sniffed as anything but text.
 *
 * The next page is asked for before this one is turned into lines, so that the database reads it
 * while this process formats and sends: two pages at most are held at once
 * (docs/performance.md#the-csv-export).
 */
export function streamCsvExport<Row>(reply: FastifyReply, csv: CsvExport<Row>): FastifyReply {
  async function* lines() {
    yield csv.header;
    let next: Promise<Row[]> | undefined = csv.page(undefined);
    try {
      while (next) {
        const rows: Row[] = await next;
        const last = rows[rows.length - 1];
        next = rows.length === csv.batch && last !== undefined ? csv.page(last) : undefined;
        if (rows.length) yield rows.map(csv.line).join('');
      }
    } finally {
      // The download stopped (the browser went away) with a page still being read: its outcome
      // has no one left to take it, and a failure must not become an unhandled rejection.
      next?.catch(() => {});
    }
  }
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${csv.filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(Readable.from(lines()));
}
