import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOldRiskDecisions, setDecisionHook } from '../../src/risk/risk-decision-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, signIn } from '../helpers/dashboard.ts';

/**
 * Decisions as records (docs/risk.md#decisions-as-records): every payment-time decision is on the
 * purchase's back-office timeline, exported as JSON pages and CSV for one account only, purged
 * after the retention, and never holds a card number.
 */
let app: TestApp;
let a: Caller;
let b: Caller;
let purchaseId: string;

const PREPAID = '5105 1051 0510 5100';
const GOOD = '4242 4242 4242 4242';

beforeAll(async () => {
  app = await startTestApp();
  [a, b] = [await caller(app), await caller(app)];
  // A 3x plan under the built-in rules (prepaid cards refused for credit): refused, then paid with a good card.
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 }));
  expect(res.statusCode, res.body).toBe(201);
  purchaseId = res.json().id as string;
  const refused = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: PREPAID });
  expect(refused.statusCode, refused.body).toBe(402);
  const paid = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: GOOD });
  expect(paid.statusCode, paid.body).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

/** The account's decision days (UTC ± a day covers any time zone): the export's period. */
function period(): { from: string; to: string } {
  const now = app.services.clock.now().getTime();
  return { from: new Date(now - 2 * 86_400_000).toISOString().slice(0, 10), to: new Date(now + 2 * 86_400_000).toISOString().slice(0, 10) };
}

const exportJson = (m: Caller, query: string) => app.server.inject({ method: 'GET', url: `/api/backoffice/risk_decisions?${query}`, headers: { authorization: m.dashboard } });
const exportCsv = (auth: string, query: string) => app.server.inject({ method: 'GET', url: `/api/backoffice/risk_decisions.csv?${query}`, headers: { authorization: auth } });

describe("the purchase's timeline", () => {
  it('shows the refused decision with its reason in words and code, and the accepted one, with card, fingerprint, score and latency', async () => {
    for (const user of [a.merchant, await addDashboardUser(app, a.accountId, 'support')]) {
      const s = await signIn(app, user);
      const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${purchaseId}`, headers: { cookie: s.cookie } });
      expect(page.statusCode).toBe(200);
      const lines = [...page.body.matchAll(/<span class="risk-decision" data-outcome="(\w+)">([\s\S]*?)<\/span><\/span>/g)];
      expect(lines.map((l) => l[1])).toEqual(['refused', 'accepted']);
      const [refused, accepted] = lines.map((l) => l[2]!);
      expect(refused).toContain('Risk decision on the leader’s card: refused');
      expect(refused).toContain('prepaid card for a credit plan (<code>CARD_PREPAID</code>)');
      expect(refused).toContain('•••• 5100, prepaid');
      expect(refused).toMatch(/fingerprint <code>cfp_[\w-]+<\/code>/);
      expect(refused).toMatch(/score \d+\/100/);
      expect(refused).toMatch(/decided in \d+ ms/);
      expect(accepted).toContain('Risk decision on the leader’s card: accepted');
      expect(accepted).toContain('•••• 4242, credit');
      expect(accepted).not.toContain('<code>CARD_');
    }
  });

  it('is in French for a French reader', async () => {
    const s = await signIn(app, a.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${purchaseId}?lang=fr`, headers: { cookie: s.cookie } });
    expect(page.body).toContain('Décision de risque sur la carte de l’organisateur : refusée');
    expect(page.body).toContain('carte prépayée pour un crédit (<code>CARD_PREPAID</code>)');
  });

  it("says the scoring hook's verdict when it was asked, and when the account's default answered for it", async () => {
    const db = app.services.db;
    const { rows } = await db.query<{ id: string }>('SELECT id FROM risk_decisions WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id', [a.accountId, purchaseId]);
    const [refused, accepted] = rows.map((r) => r.id);
    await setDecisionHook(db, a.accountId, refused!, { source: 'hook', outcome: 'refuse', reason: 'mule', latencyMs: 40 }, 45);
    await setDecisionHook(db, a.accountId, accepted!, { source: 'default', outcome: 'accept', error: 'timeout', latencyMs: 2000 }, 2004);
    const s = await signIn(app, a.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${purchaseId}`, headers: { cookie: s.cookie } });
    expect(page.body).toContain('decided in 45 ms · scoring service: refused');
    expect(page.body).toContain('decided in 2004 ms · scoring service did not answer (timeout), the account’s default: accepted');
    const csv = await exportCsv(a.dashboard, new URLSearchParams(period()).toString());
    expect(
      csv.body
        .split('\r\n')
        .slice(1, 3)
        .map((l) => l.split(',').at(-1)),
    ).toEqual(['refuse', 'accept']);
    await db.query('UPDATE risk_decisions SET hook = NULL WHERE account_id = $1 AND purchase_id = $2', [a.accountId, purchaseId]);
  });

  it('another account does not see the purchase, nor its decisions', async () => {
    const s = await signIn(app, b.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${purchaseId}`, headers: { cookie: s.cookie } });
    expect(page.statusCode).toBe(404);
    expect(page.body).not.toContain('risk-decision');
  });
});

describe("a pot's pledgers", () => {
  it("each friend's card has its decision on the timeline and in the export, with its pledge", async () => {
    const c = await caller(app);
    const pot = (await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json() as { id: string };
    const led = await c.post(`/api/sandbox/purchases/pur_${pot.id}/pay`, { card_number: GOOD, pledgers: [{ email: 'ann@example.com', amount_cents: 3_000 }] });
    expect(led.statusCode, led.body).toBe(200);
    const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM pledges WHERE account_id = $1 AND purchase_id = $2', [c.accountId, pot.id]);
    const pledge = `plg_${rows[0]!.id}`;
    const paid = await c.post(`/api/sandbox/pledges/${pledge}/pay`, { card_number: '4000 0082 6000 0000' });
    expect(paid.statusCode, paid.body).toBe(200);

    const s = await signIn(app, c.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${pot.id}`, headers: { cookie: s.cookie } });
    expect(page.body).toContain('Risk decision on the friend’s card: accepted');
    expect(page.body).toContain('•••• 0000, credit, GB');
    const { from, to } = period();
    const data = (await exportJson(c, `from=${from}&to=${to}`)).json().data as { purpose: string; pledge_uid: string | null; score: unknown }[];
    expect(data.map((d) => [d.purpose, d.pledge_uid])).toEqual([
      ['leader', null],
      ['pledge', pledge],
    ]);
    expect(data[1]!.score).toBeNull();
  });
});

describe('the export', () => {
  it('pages the JSON oldest first with a cursor; the record holds the card as BIN, last four and fingerprint', async () => {
    const { from, to } = period();
    const first = await exportJson(a, `from=${from}&to=${to}&limit=1`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const one = first.json() as { data: Record<string, unknown>[]; has_more: boolean; next_cursor: string };
    expect(one.data).toHaveLength(1);
    expect(one.has_more).toBe(true);
    expect(one.data[0]).toMatchObject({
      purchase_uid: `pur_${purchaseId}`,
      merchant_uid: a.offer('INSTALLMENTS', 3),
      purpose: 'leader',
      outcome: 'refused',
      reasons: [{ code: 'CARD_PREPAID' }],
      amount_cents: 30_000,
      credit_cents: 0,
      hook: null,
    });
    const card = (one.data[0]!.inputs as { card: Record<string, unknown> }).card;
    expect(card).toMatchObject({ bin: '510510', last4: '5100', funding: 'prepaid' });
    expect(card.fingerprint).toBe(one.data[0]!.card_fingerprint);

    const second = (await exportJson(a, `from=${from}&to=${to}&limit=1&cursor=${one.next_cursor}`)).json() as { data: Record<string, unknown>[]; has_more: boolean };
    expect(second.data.map((d) => [d.outcome, d.purpose])).toEqual([['accepted', 'leader']]);
    expect(second.has_more).toBe(false);
    expect(second.data[0]!.credit_cents).toBeGreaterThan(0);
  });

  it('streams the CSV with the documented columns, for admins and support users', async () => {
    const { from, to } = period();
    const support = await addDashboardUser(app, a.accountId, 'support');
    for (const auth of [a.dashboard, basic(support.email, support.password)]) {
      const res = await exportCsv(auth, `from=${from}&to=${to}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="chipin-risk-decisions-${from}-${to}.csv"`);
      const rows = res.body.split('\r\n').map((l) => l.split(','));
      expect(rows[0]).toEqual([
        'id',
        'created_at',
        'purchase_uid',
        'merchant_uid',
        'purpose',
        'outcome',
        'reasons',
        'score',
        'amount_cents',
        'credit_cents',
        'card_brand',
        'card_bin',
        'card_last4',
        'card_funding',
        'card_country',
        'card_fingerprint',
        'latency_ms',
        'hook_outcome',
      ]);
      expect(rows.slice(1, -1).map((r) => [r[2], r[4], r[5], r[6], r[11], r[12], r[13]])).toEqual([
        [`pur_${purchaseId}`, 'leader', 'refused', 'CARD_PREPAID', '510510', '5100', 'prepaid'],
        [`pur_${purchaseId}`, 'leader', 'accepted', '', '424242', '4242', 'credit'],
      ]);
      expect(rows.at(-1)).toEqual(['']); // ends with CRLF
    }
  });

  it("answers none of another account's decisions, and a period before them is empty", async () => {
    const { from, to } = period();
    expect((await exportJson(b, `from=${from}&to=${to}`)).json()).toEqual({ data: [], has_more: false });
    expect((await exportCsv(b.dashboard, `from=${from}&to=${to}`)).body).toBe(`${(await exportCsv(a.dashboard, `from=${from}&to=${to}`)).body.split('\r\n')[0]}\r\n`);
    expect((await exportJson(a, 'from=2020-01-01&to=2020-01-31')).json()).toEqual({ data: [], has_more: false });
  });

  it('refuses a wrong day, a period backwards, a forged cursor and a missing bound, naming the parameter', async () => {
    const cases: [string, RegExp][] = [
      ['from=2026-02-30&to=2026-03-01', /^query parameter from/],
      ['from=2026-03-02&to=2026-03-01', /to must be on or after from/],
      ['from=2026-03-01&to=2026-03-02&cursor=bm9wZQ', /cursor is not a cursor/],
      ['from=2026-03-01', /query parameter to is required/],
    ];
    for (const [query, message] of cases) {
      const res = await exportJson(a, query);
      expect(res.statusCode, query).toBe(400);
      expect((res.json() as { error: { debug: string } }).error.debug, query).toMatch(message);
    }
    expect((await exportCsv(a.dashboard, 'from=2026-13-01&to=2026-12-01')).statusCode).toBe(400);
    // Days the service cannot compute with: 400 naming the parameter, as the daily report, never a 500.
    for (const [query, field] of [
      ['from=0001-01-01&to=9999-12-31', 'from'],
      ['from=2026-01-01&to=9999-12-31', 'to'],
      ['from=1969-12-31&to=2026-01-01', 'from'],
    ] as const) {
      for (const res of [await exportJson(a, query), await exportCsv(a.dashboard, query)]) {
        expect(res.statusCode, query).toBe(400);
        expect((res.json() as { error: { debug: string } }).error.debug, query).toBe(`query parameter ${field} must be a calendar day YYYY-MM-DD, 1970-01-01 to 9998-12-31`);
      }
    }
    expect((await exportJson(a, 'from=1970-01-01&to=1970-01-02')).statusCode).toBe(200);
    expect((await exportJson(a, 'from=9998-12-30&to=9998-12-31')).statusCode).toBe(200);
    expect((await app.server.inject({ method: 'GET', url: '/api/backoffice/risk_decisions?from=2026-01-01&to=2026-01-02' })).statusCode).toBe(401);
  });
});

describe('the records', () => {
  it('hold no full card number in any column of any table', async () => {
    const db = app.services.db;
    const { rows: tables } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toContain('risk_decisions');
    for (const { table_name } of tables) {
      for (const pan of ['5105105105105100', '4242424242424242']) {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}" t WHERE row_to_json(t)::text LIKE $1`, [`%${pan}%`]);
        expect(rows[0]!.n, `${table_name} holds ${pan}`).toBe(0);
      }
    }
  });

  it('are purged after the retention, by batches, and only those older than it', async () => {
    const db = app.services.db;
    const ids = async () => (await db.query<{ id: string }>('SELECT id FROM risk_decisions WHERE account_id = $1 ORDER BY created_at, id', [a.accountId])).rows.map((r) => r.id);
    const [oldest, recent] = await ids();
    // Three more old ones: a copy of the refused decision dated 401 days ago, and two 500 days ago.
    await db.query(
      `INSERT INTO risk_decisions (id, account_id, purchase_id, offer_id, payment_id, pledge_id, purpose, outcome, amount_cents, credit_cents, reasons, score, inputs, hook, card_fingerprint, latency_ms, created_at)
       SELECT gen_random_uuid(), account_id, purchase_id, offer_id, NULL, pledge_id, purpose, outcome, amount_cents, 0, reasons, score, inputs, hook, card_fingerprint, latency_ms, now() - make_interval(days => d)
         FROM risk_decisions, unnest(ARRAY[401, 500, 500]) AS d WHERE id = $1`,
      [oldest],
    );
    // And one just inside the retention.
    await db.query("UPDATE risk_decisions SET created_at = now() - interval '399 days' WHERE id = $1", [oldest]);
    expect(await ids()).toHaveLength(5);

    expect(await purgeOldRiskDecisions(db, 400, new Date(), 2)).toBe(3);
    expect((await ids()).sort()).toEqual([oldest, recent].sort());
    expect(await purgeOldRiskDecisions(db, 400, new Date(), 2)).toBe(0);
  });
});
