import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell } from '../../src/http/backoffice/purchases-csv.ts';
import { NO_PARALLEL_WORKERS, purchaseExportQuery } from '../../src/purchases/purchase-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { signIn } from '../helpers/dashboard.ts';

/** The purchases list's CSV export (docs/back-office.md): the list's filters, RFC 4180, no formula cells, one account only. */
let app: TestApp;
let a: Caller;
let b: Caller;
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  [a, b] = [await caller(app), await caller(app)];
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

async function purchase(m: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const res = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const csv = (query = '', cookie = s.cookie) => app.server.inject({ method: 'GET', url: `/dashboard/purchases.csv${query}`, headers: { cookie } });

/** RFC 4180 parsed back: rows of cells (quoted cells may hold commas, quotes and line breaks). */
function parse(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(cell + row.join('')).toBe(''); // the file ends with CRLF
  return rows;
}

describe('the CSV export', () => {
  it('is an attachment with the documented columns, one line per purchase, v1 states, cents and ISO dates', async () => {
    const id = await purchase(a, { ref: 'CSV-ONE', amount: 12_345, client: { email: 'csv.one@example.com' } });
    await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
    await a.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 345 });
    const res = await csv('?q=CSV-ONE');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="chipin-purchases-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parse(res.body);
    expect(rows[0]).toEqual(['id', 'reference', 'created_at', 'state', 'merchant_uid', 'title', 'amount_cents', 'currency', 'client_email', 'refunded_cents']);
    expect(rows.length).toBe(2);
    const [pur, ref, createdAt, state, mer, title, amount, currency, email, refunded] = rows[1]!;
    expect([pur, ref, state, mer, title, amount, currency, email, refunded]).toEqual([
      `pur_${id}`,
      'CSV-ONE',
      'SUCCESSFUL',
      a.offer('SHARED'),
      'Weekend in Lisbon',
      '12345',
      'EUR',
      'csv.one@example.com',
      '345',
    ]);
    expect(new Date(createdAt!).toISOString()).toBe(createdAt);
  });

  it('writes created_at in UTC to the millisecond as Date.toISOString does, a stored microsecond fraction cut, not rounded', async () => {
    const id = await purchase(a, { ref: 'CSV-MICROS' });
    await app.services.db.query(`UPDATE purchases SET created_at = '2026-01-02 03:04:05.678901+00' WHERE id = $1`, [id]);
    const rows = parse((await csv('?q=CSV-MICROS')).body);
    expect(rows[1]![2]).toBe(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)).toISOString());
  });

  it('quotes commas, quotes and line breaks (RFC 4180) and defuses cells a spreadsheet would run as formulas', async () => {
    await purchase(a, { ref: '=HYPERLINK("http://evil.example","x")', title: 'Bed, "king" size' });
    await purchase(a, { ref: '+1+1', title: '@SUM(A1)' });
    await purchase(a, { ref: '-2', title: 'Plain' });
    const res = await csv('?state=INITIALIZED');
    expect(res.body).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    expect(res.body).toContain(`,"Bed, ""king"" size",`);
    const rows = parse(res.body);
    const byTitle = (t: string) => rows.find((r) => r[5] === t);
    expect(byTitle('Bed, "king" size')?.[1]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(byTitle(`'@SUM(A1)`)?.[1]).toBe(`'+1+1`);
    expect(byTitle('Plain')?.[1]).toBe(`'-2`);
    expect([csvCell('\tx'), csvCell('\rx'), csvCell('a\nb'), csvCell(null), csvCell(-5)]).toEqual([`'\tx`, `"'\rx"`, '"a\nb"', '', '-5']);
  });

  it('reads back every text as written, with an apostrophe before a formula sign and nothing else changed (any text)', () => {
    const chars = fc.constantFrom('a', 'Z', '0', ' ', ',', '"', '\r', '\n', '\t', '=', '+', '-', '@', "'", 'é', '€');
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 12 }), fc.string({ unit: chars, maxLength: 12 }), (x, y) => {
        const defused = (t: string) => (/^[=+\-@\t\r]/.test(t) ? `'${t}` : t);
        expect(parse(`${csvCell(x)},${csvCell(y)}\r\n`)).toEqual([[defused(x), defused(y)]]);
        // RFC 4180: a cell holding a comma, a quote or a line break is quoted.
        if (!csvCell(x).startsWith('"')) expect(csvCell(x)).not.toMatch(/[",\r\n]/);
      }),
    );
  });

  it.skipIf(!onPostgres)('plans a page of the export without parallel workers: its guard keeps PostgreSQL from starting them', async () => {
    // A Gather is what starts workers. force_parallel_mode (PostgreSQL 15; debug_parallel_query
    // since 16) puts one over every plan that is parallel safe: the guard must make a statement
    // that gets one serial. (The export's own statement is not parallel safe as a whole, so this
    // mode cannot show it; with a million purchases PostgreSQL gave some of its pages a Gather
    // Merge: docs/performance.md#the-csv-export.)
    expect(purchaseExportQuery(a.accountId, { limit: 1000 }).text).toContain(`AND ${NO_PARALLEL_WORKERS} ORDER BY`);
    const plans = await app.services.db.transaction(async (tx) => {
      await tx.query("SELECT set_config(name, 'on', true) FROM pg_settings WHERE name IN ('force_parallel_mode', 'debug_parallel_query')");
      const plan = async (sql: string) => JSON.stringify((await tx.query('EXPLAIN (FORMAT JSON) ' + sql, [a.accountId])).rows);
      const count = 'SELECT count(*) FROM purchases p WHERE p.account_id = $1';
      return { plain: await plan(count), guarded: await plan(`${count} AND ${NO_PARALLEL_WORKERS}`) };
    });
    expect(plans.plain).toContain('Gather');
    expect(plans.guarded).not.toContain('Gather');
  });

  it('keeps the list’s filters, names a wrong one (400, nothing exported), and the list links to it with them', async () => {
    const wanted = await purchase(a, { ref: 'CSV-FILTER', client: { email: 'Filter.Me@example.com' } });
    await purchase(a, { ref: 'CSV-OTHER' });
    const rows = parse((await csv('?q=filter.me%40example.com&state=INITIALIZED')).body);
    expect(rows.slice(1).map((r) => r[0])).toEqual([`pur_${wanted}`]);
    expect(parse((await csv('?q=CSV-FILTER&state=SUCCESSFUL')).body).length).toBe(1);

    const bad = await csv('?from=2026-02-31');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
    expect(bad.body).toContain('Created from: enter a date as YYYY-MM-DD.');
    // A day the service cannot compute with: the same 400 page, never a 500.
    const far = await csv('?from=0001-01-01&to=9999-12-31');
    expect(far.statusCode).toBe(400);
    expect(far.headers['content-type']).toMatch(/^text\/html/);
    expect(far.body).toContain('Created up to (inclusive): enter a date from 1970-01-01 to 9998-12-31.');

    const list = await app.server.inject({ method: 'GET', url: '/dashboard/purchases?q=CSV-FILTER&state=INITIALIZED', headers: { cookie: s.cookie } });
    expect(list.body).toContain('href="/dashboard/purchases.csv?q=CSV-FILTER&amp;state=INITIALIZED&amp;offer=&amp;from=&amp;to="');
  });

  it("exports only the signed-in account's purchases, and sends a browser without a session to sign in", async () => {
    const theirs = await purchase(b, { ref: 'CSV-THEIRS' });
    const mine = await csv();
    expect(mine.body).not.toContain(theirs);
    expect(parse((await csv('?q=CSV-THEIRS')).body).length).toBe(1);
    expect(parse((await csv('', (await signIn(app, b.merchant)).cookie)).body).map((r) => r[0])).toEqual(['id', `pur_${theirs}`]);
    const none = await csv('', 'chipin_dashboard=forged');
    expect(none.statusCode).toBe(303);
    expect(none.headers.location).toBe('/dashboard/sign-in');
  });

  it('streams an export of several keyset pages: every purchase once, newest first, ties at a page boundary included', async () => {
    const c = await caller(app);
    const first = await purchase(c, { ref: 'BULK-0' });
    // 2,500 more of its kind in one statement (three pages of the export's 1,000), seven to a
    // millisecond: purchases made in the same millisecond have one created_at, and the export (as
    // the list's keyset pages) orders them by id, descending, so that the order is total even where
    // a page ends inside such a group.
    await app.services.db.query(
      `INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, title, amount_cents, currency, language, ref, created_at, updated_at)
       SELECT gen_random_uuid(), p.account_id, p.offer_id, p.client_id, p.state, p.comment, p.title, p.amount_cents, p.currency, p.language,
              'BULK-' || i, p.created_at - (i / 7) * interval '1 millisecond', p.created_at
       FROM purchases p, generate_series(1, 2500) AS i WHERE p.id = $1`,
      [first],
    );
    const rows = parse((await csv('', (await signIn(app, c.merchant)).cookie)).body).slice(1);
    expect(rows.length).toBe(2501);
    expect(new Set(rows.map((r) => r[0])).size).toBe(2501);
    const { rows: made } = await app.services.db.query<{ id: string; ref: string; at: string }>(
      `SELECT id::text AS id, ref, to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at FROM purchases WHERE account_id = $1`,
      [c.accountId],
    );
    const newestFirst = [...made].sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1)).map((m) => m.ref);
    expect(rows.map((r) => r[1])).toEqual(newestFirst);
    expect(new Set(newestFirst).size).toBe(2501);
  });
});
