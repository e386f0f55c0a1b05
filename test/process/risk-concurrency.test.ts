/**
 * The shopper rules of the payment-time decision under concurrency: two
 * `chipin serve` processes on one PostgreSQL database, one shopper's purchases paid at once, half
 * through each process. The maximum outstanding credit and the hourly velocity hold whatever the
 * interleaving, because each decision takes the shopper's advisory locks and reads the history in
 * one call (`chipin_shopper_history`, docs/risk.md#under-concurrency), and records its reservation
 * before the locks are released. The shopper is one e-mail (a new card per purchase) or one card
 * (a new e-mail per purchase): each identity key alone serialises the decisions.
 *
 * PGlite is one process's embedded database, one transaction at a time: skipped there.
 */
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';
import { basic, cleanUp, cliEnv, getToken, killAll, PROCESS_TEST_MS, runCli, startServe, tempDataDir, uniqueEmail, type CreatedMerchant, type Served } from './harness.ts';

if (!onPostgres) console.info('risk-concurrency tests skipped: they need PostgreSQL (DATABASE_URL)');

afterAll(cleanUp);

type Identity = 'email' | 'card';
const CREDIT_OFFERS = [
  { type: 'INSTALLMENTS', installments: 3 },
  { type: 'INSTALLMENTS', installments: 4 },
  { type: 'DEFERRED', installments: 1 },
] as const;

/** A Luhn-valid Visa number no sandbox test card uses: a French credit card that approves, a fingerprint of its own. */
function freshCard(): string {
  const body = '49' + Array.from({ length: 13 }, () => randomInt(10)).join('');
  for (let check = 0; check < 10; check++) if (luhn(body + check)) return body + check;
  throw new Error('unreachable');
}
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** One purchase to pay: its amount and offer (index in CREDIT_OFFERS). */
const purchaseArb = fc.record({ amount: fc.integer({ min: 5_000, max: 60_000 }), offer: fc.integer({ min: 0, max: CREDIT_OFFERS.length - 1 }) });

interface Decision {
  purchase_id: string;
  outcome: 'accepted' | 'refused';
  credit_cents: number;
  codes: string[];
  seen_outstanding: number;
  seen_plans_hour: number;
  latency_ms: number;
  state: string;
}

describe.skipIf(!onPostgres)('the shopper rules hold with two processes deciding at once (PostgreSQL)', () => {
  let isolated: IsolatedDatabase | undefined;
  let client: pg.Client | undefined;
  let merchant: CreatedMerchant;
  let servers: Served[] = [];
  let tokens: string[] = [];
  const latencies: number[] = [];

  beforeAll(async () => {
    isolated = await isolatedDatabase();
    const url = isolated.url!;
    const extra = { ...isolated.env, JOB_POLL_INTERVAL_MS: '0' };
    const r = await runCli(['merchant', 'create', '--name', 'Risk Race Shop', '--email', uniqueEmail('risk-race'), '--json'], cliEnv(tempDataDir(), extra));
    expect(r.code, r.stderr).toBe(0);
    merchant = JSON.parse(r.stdout) as CreatedMerchant;
    client = new pg.Client({ connectionString: url });
    await client.connect();
    // Two processes, each with its own DATA_DIR (the same master key) and its own pool.
    servers = await Promise.all([startServe(tempDataDir(), extra), startServe(tempDataDir(), extra)]);
    tokens = await Promise.all(servers.map((s) => getToken(s.url, merchant.api_key, merchant.api_secret)));
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    if (latencies.length > 0) {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
      console.info(`risk decisions under concurrency: ${sorted.length} decisions, latency_ms p50 ${at(0.5)}, p99 ${at(0.99)}, max ${sorted.at(-1)}`);
    }
    await client?.end();
    await killAll();
    await isolated?.dispose();
  });

  async function call(i: number, method: string, path: string, body?: object, authorization = `Bearer ${tokens[i]}`) {
    const res = await fetch(`${servers[i]!.url}${path}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }

  /**
   * The account's rules, written through both processes: each drops its own copy of the rules
   * on an edit (src/risk/risk-rules-cache.ts), so both decide with these from the next request on.
   */
  async function setRules(rules: Record<string, unknown>): Promise<void> {
    for (const i of [0, 1]) {
      const res = await call(i, 'PUT', '/api/backoffice/risk_rules/account', rules, basic(merchant.email, merchant.password));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  }

  /**
   * Creates the purchases of one shopper, then pays them all at once, the even ones through the
   * first process and the odd ones through the second; every answer is a payment or a risk refusal.
   */
  async function payAtOnce(identity: Identity, purchases: { amount: number; offer: number }[]): Promise<{ ids: string[]; statuses: number[] }> {
    const email = uniqueEmail('shopper');
    const card = freshCard();
    const ids = await Promise.all(
      purchases.map(async (p, n) => {
        const spec = CREDIT_OFFERS[p.offer]!;
        const offer = merchant.offers.find((o) => o.type === spec.type && o.installments === spec.installments)!;
        const res = await call(n % 2, 'POST', '/api/merchants/v1/purchases', {
          title: 'Race',
          amount: p.amount,
          client: { email: identity === 'email' ? email : uniqueEmail(`shopper${n}`) },
          merchant_uid: offer.merchant_uid,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      }),
    );
    const answers = await Promise.all(ids.map((id, n) => call(n % 2, 'POST', `/api/sandbox/purchases/pur_${id}/pay`, { card_number: identity === 'card' ? card : freshCard() })));
    for (const a of answers) {
      if (a.status === 200) expect(a.body.state).toBe('LEADER_PROCESSED');
      else expect([a.status, (a.body.error as { app_error?: string } | undefined)?.app_error], JSON.stringify(a.body)).toEqual([402, 'risk_refused']);
    }
    return { ids, statuses: answers.map((a) => a.status) };
  }

  /** The leader decisions about these purchases, as recorded, with what each one's history read. */
  async function decisionsOf(ids: string[]): Promise<Decision[]> {
    const { rows } = await client!.query<Decision>(
      `SELECT d.purchase_id, d.outcome, d.credit_cents::int, ARRAY(SELECT jsonb_array_elements(d.reasons)->>'code') AS codes,
              (d.inputs->'history'->>'outstanding_cents')::int AS seen_outstanding, (d.inputs->'history'->>'plans_last_hour')::int AS seen_plans_hour,
              d.latency_ms, p.state
         FROM risk_decisions d JOIN purchases p ON p.account_id = d.account_id AND p.id = d.purchase_id
        WHERE d.account_id = $1 AND d.purchase_id = ANY($2::uuid[]) AND d.purpose = 'leader'`,
      [merchant.account_id.slice(4), ids],
    );
    latencies.push(...rows.map((r) => r.latency_ms));
    expect(rows.map((r) => r.purchase_id).sort()).toEqual([...ids].sort()); // one decision per attempt
    for (const d of rows) expect(d.state).toBe(d.outcome === 'accepted' ? 'LEADER_PROCESSED' : 'CREATED');
    return rows;
  }

  /** What the shopper owes now on these purchases: the unpaid lines of the plans started (none is still being paid). */
  async function outstandingOf(ids: string[]): Promise<number> {
    const { rows } = await client!.query<{ owed: number }>(
      `SELECT coalesce(sum(i.amount_cents + i.fees_cents), 0)::int AS owed
         FROM purchases p JOIN installments i ON i.account_id = p.account_id AND i.purchase_id = p.id
        WHERE p.account_id = $1 AND p.id = ANY($2::uuid[]) AND p.state = 'LEADER_PROCESSED' AND i.state <> 'paid'`,
      [merchant.account_id.slice(4), ids],
    );
    return rows[0]!.owed;
  }

  /** The accepted decisions ordered as they ran: each read the credit of exactly those before it. */
  function expectSerialised(decisions: Decision[], seen: (d: Decision) => number, step: (d: Decision) => number): void {
    const accepted = decisions.filter((d) => d.outcome === 'accepted').sort((a, b) => seen(a) - seen(b) || step(a) - step(b));
    let before = 0;
    const prefixes = [0];
    for (const d of accepted) {
      expect(seen(d)).toBe(before);
      before += step(d);
      prefixes.push(before);
    }
    // A refusal read one of those states too: never a half-recorded plan, never one counted twice.
    for (const d of decisions.filter((x) => x.outcome === 'refused')) expect(prefixes).toContain(seen(d));
  }

  describe.each<Identity>(['email', 'card'])('one shopper by %s', (identity) => {
    it(
      "the shopper's outstanding credit never exceeds max_outstanding_cents; every refusal says OUTSTANDING_CREDIT_LIMIT",
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 10_000, max: 150_000 }), fc.array(purchaseArb, { minLength: 4, maxLength: 10 }), async (ceiling, purchases) => {
            await setRules({ max_outstanding_cents: ceiling });
            const { ids, statuses } = await payAtOnce(identity, purchases);
            const decisions = await decisionsOf(ids);
            const accepted = decisions.filter((d) => d.outcome === 'accepted');
            expect(accepted.length).toBe(statuses.filter((s) => s === 200).length);
            const owed = await outstandingOf(ids);
            expect(owed).toBeLessThanOrEqual(ceiling);
            // What the accepted decisions reserved is what the started plans owe.
            expect(owed).toBe(accepted.reduce((sum, d) => sum + d.credit_cents, 0));
            for (const d of accepted) expect(d.seen_outstanding + d.credit_cents).toBeLessThanOrEqual(ceiling);
            for (const d of decisions.filter((x) => x.outcome === 'refused')) expect(d.codes).toEqual(['OUTSTANDING_CREDIT_LIMIT']);
            expectSerialised(
              decisions,
              (d) => d.seen_outstanding,
              (d) => d.credit_cents,
            );
          }),
          { numRuns: 8, seed: identity === 'email' ? 3201 : 3202, endOnFailure: true },
        );
      },
      PROCESS_TEST_MS,
    );

    it(
      'max_plans_per_hour = k: of more than k purchases paid at once, exactly k start a plan; every refusal says VELOCITY_LIMIT',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), fc.array(purchaseArb, { minLength: 10, maxLength: 10 }), async (k, extra, pool) => {
            await setRules({ max_plans_per_hour: k });
            const { ids } = await payAtOnce(identity, pool.slice(0, k + extra));
            const decisions = await decisionsOf(ids);
            const accepted = decisions.filter((d) => d.outcome === 'accepted');
            expect(accepted.length).toBeLessThanOrEqual(k);
            for (const d of decisions.filter((x) => x.outcome === 'refused')) expect(d.codes).toEqual(['VELOCITY_LIMIT']);
            // Each refusal read k plans started: so exactly k were.
            expect(accepted.length).toBe(k);
            expectSerialised(
              decisions,
              (d) => d.seen_plans_hour,
              () => 1,
            );
          }),
          { numRuns: 5, seed: identity === 'email' ? 3211 : 3212, endOnFailure: true },
        );
      },
      PROCESS_TEST_MS,
    );
  });
});
