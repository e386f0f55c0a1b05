/**
 * The CSV stream of the back-office exports (src/http/csv-export.ts): keyset pages read one ahead
 * of the one being sent. A page that fails while the download waits for its reader must end the
 * download cut short, never become an unhandled rejection (which ends the Node process).
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { streamCsvExport, type CsvExport } from '../../src/http/csv-export.ts';

/** A server with one export at `/x.csv`: numbers, a header `n`, pages and lines as given. */
function csvApp(csv: Pick<CsvExport<number>, 'batch' | 'page' | 'line'>) {
  const app = Fastify();
  app.get('/x.csv', (_request, reply) => streamCsvExport<number>(reply, { filename: 'x.csv', header: 'n\r\n', ...csv }));
  return app;
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
});

describe('the CSV stream', () => {
  it('reads every page once, in order, the next asked for before the reader took this one', async () => {
    const asked: (number | undefined)[] = [];
    const app = csvApp({
      batch: 2,
      page: async (last) => {
        asked.push(last);
        const from = (last ?? 0) + 1;
        return [from, from + 1].filter((n) => n <= 5);
      },
      line: (n) => `${n}\r\n`,
    });
    const res = await app.inject({ method: 'GET', url: '/x.csv' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('n\r\n1\r\n2\r\n3\r\n4\r\n5\r\n');
    expect(asked).toEqual([undefined, 2, 4]);
    await app.close();
  });

  it('ends the download cut short when a page asked ahead fails while the reader is away, with no unhandled rejection', async () => {
    process.on('unhandledRejection', onUnhandled);
    // The first page is one line of 8 MiB, more than the socket takes while the reader stays away:
    // the stream stops asking for lines after the next page is sent, with the one after it asked
    // ahead. That page, the third, fails then.
    const big = 'x'.repeat(8 * 1024 * 1024);
    const app = csvApp({
      batch: 1,
      page: async (last) => {
        const n = (last ?? 0) + 1;
        if (n < 3) return [n];
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('the database went away');
      },
      line: (n) => (n === 1 ? `1 ${big}\r\n` : `${n}\r\n`),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/x.csv`);
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 300));
    let lines = 0;
    const cut = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return false;
          for (const byte of value) if (byte === 10) lines++;
        }
      } catch {
        return true;
      }
    })();
    expect(cut).toBe(true);
    expect(lines).toBe(2); // the two pages after the header, which the first read took
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
    await app.close();
  });
});
