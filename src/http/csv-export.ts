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
 */
export function streamCsvExport<Row>(reply: FastifyReply, csv: CsvExport<Row>): FastifyReply {
  async function* lines() {
    yield csv.header;
    let last: Row | undefined;
    for (;;) {
      const rows = await csv.page(last);
      if (rows.length) yield rows.map(csv.line).join('');
      last = rows[rows.length - 1];
      if (rows.length < csv.batch || last === undefined) return;
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
