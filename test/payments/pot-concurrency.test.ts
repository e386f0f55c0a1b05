import { afterAll, beforeAll, expect, it } from 'vitest';
import { newUuid } from '../../src/domain/ids.ts';
import { findPledge } from '../../src/payments/pledge-repository.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app.close());

// PGlite runs one transaction at a time, so only a PostgreSQL server exercises real races.
it.runIf(onPostgres)('50 pledges paid at once never over-fund the pot: the captured total equals the amount', async () => {
  const amount = 10_000;
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount }))).json();
  // The leader keeps 500 and invites 19 friends of 500 each: the pot needs exactly 9,500 from them.
  const invited = Array.from({ length: 19 }, (_, i) => ({ email: `friend${i}@example.com`, amount_cents: 500 }));
  const led = (await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: '4242424242424242', pledgers: invited })).json();
  expect(led.state).toBe('LEADER_PROCESSED');
  const accountId = a.merchant.account_id.slice(4);
  // 31 more pledges of 500 (as if shared twice): 25,000 offered for the 9,500 the pot needs.
  const now = new Date();
  for (let i = 19; i < 50; i++) {
    await app.services.db.query(
      `INSERT INTO pledges (id, account_id, purchase_id, email, amount_cents, position, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 500, $5, 'invited', $6, $6)`,
      [newUuid(), accountId, p.id, `friend${i}@example.com`, i, now],
    );
  }
  const { rows } = await app.services.db.query<{ id: string }>("SELECT id FROM pledges WHERE purchase_id = $1 AND state = 'invited'", [p.id]);
  expect(rows).toHaveLength(50);
  const card = { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Friend' };
  const outcomes = await Promise.all(
    rows.map(async (r) => payPledge(app.services.payments, (await findPledge(app.services.db, accountId, r.id))!, card, () => 'http://127.0.0.1/return')),
  );
  const paid = outcomes.filter((o) => o.kind === 'paid').length;
  expect(paid).toBe(19); // 9,500 left / 500
  expect(outcomes.filter((o) => o.kind === 'closed').length).toBe(31);

  const totals = await app.services.db.query<{ captured: number }>('SELECT COALESCE(sum(captured_cents), 0)::bigint AS captured FROM payments WHERE purchase_id = $1', [p.id]);
  expect(totals.rows[0]!.captured).toBe(amount);
  const charged = await app.services.db.query<{ n: number }>("SELECT count(*) AS n FROM payments WHERE purchase_id = $1 AND purpose = 'pledge'", [p.id]);
  expect(charged.rows[0]!.n).toBe(19); // a pledge that no longer fitted was never sent to the PSP
  expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('SUCCESSFUL');
});
