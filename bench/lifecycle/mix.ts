/**
 * The lifecycles a shopper runs against Chipin over HTTP (docs/performance.md#lifecycle-npm-run-benchlifecycle),
 * one after another in rotation, a third each:
 *
 * - **pot**: a pot with friends on the SHARED offer. Create (`POST /api/merchants/v1/purchases`,
 *   €300), the leader pays with two pledgers named (`POST /api/sandbox/purchases/{id}/pay`:
 *   the hold on the whole and the leader's €100 share charged), each pledger pays their €100
 *   (`POST /api/sandbox/pledges/{id}/pay`); the second completes the pot.
 * - **installments**: a 3x plan on the INSTALLMENTS 3x offer: create, the leader pays (the first
 *   installment charged at checkout). The second installment is not collected: the sandbox clock
 *   is service-wide (docs/testing-in-the-sandbox.md#the-clock), so moving it for one merchant
 *   would run every other merchant's due items (pots' reminders, holds' renewals, expiries) in
 *   the measured window, and the collection is a job, not a shopper's request.
 * - **deferred**: the DEFERRED offer: create, the leader pays (a hold), then the merchant captures
 *   it now (`POST /api/trigger_capture/?signature=<JWT signed with the offer's secret>`).
 *
 * And a share refunded (`POST /api/merchants/v1/purchases/{id}/refunds`, €50 of the €300) on one
 * lifecycle in three, the kind rotating: in each round of three lifecycles (one of each kind),
 * the pot's is refunded, then in the next round the plan's, then the deferred payment's.
 *
 * After each step the shopper waits until the webhooks it causes reached the receiver (the
 * counts below, checked by the first runs of this benchmark): a step's "webhook" latency runs
 * from its answer to the last of them.
 */
import { signHs256 } from '../../src/delivery/jwt.ts';
import type { Receiver } from './receiver.ts';
import { CARD, REQUEST_TIMEOUT_MS, settings } from './settings.ts';

export const KINDS = ['pot', 'installments', 'deferred'] as const;
export type Kind = (typeof KINDS)[number];
export const STEPS = ['create', 'leader pay', 'pledge pay', 'capture trigger', 'refund'] as const;
export type Step = (typeof STEPS)[number];

export const AMOUNT = 30_000;
export const PLEDGE = 10_000;
export const REFUND = 5_000;

export interface Merchant {
  accountId: string;
  token: () => Promise<string>;
  offers: { shared: string; installments3: string; deferred: string };
  deferredSecret: string;
}

/** One timed call: its step, its latency and the latency of its webhooks after its answer (ms). */
export interface Timing {
  step: Step;
  ms: number;
  webhookMs?: number;
}

/** Whether lifecycle number `n` (from 0) is refunded: one per round of three, the kind rotating. */
export function refunded(n: number): boolean {
  return Math.floor(n / 3) % 3 === n % 3;
}

async function call(method: string, url: string, token: string | undefined, body: unknown, expect: number): Promise<{ json: Record<string, unknown>; ms: number; at: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  const at = performance.now();
  if (res.status !== expect) throw new Error(`${method} ${new URL(url).pathname} answered ${res.status}, expected ${expect}: ${text.slice(0, 400)}`);
  return { json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, ms: at - t0, at };
}

/**
 * Runs lifecycle number `n` (its kind: `KINDS[n % 3]`) for `m` against Chipin at `url`; answers
 * its steps' timings. `afterStep` runs after each step's webhooks arrived (bench/lifecycle/steps.ts).
 */
export async function runLifecycle(url: string, m: Merchant, receiver: Receiver, n: number, afterStep?: (step: Step) => Promise<void>): Promise<Timing[]> {
  const kind = KINDS[n % 3]!;
  const token = await m.token();
  const timings: Timing[] = [];
  const webhookTimeout = settings.webhookTimeout * 1000;
  // Cumulative webhooks the purchase should have received after each step.
  const want: Record<string, number> = {};
  const step = async (name: Step, method: string, path: string, body: unknown, expect: number, adds: Record<string, number>, auth: string | undefined = token) => {
    const r = await call(method, url + path, auth, body, expect);
    for (const [k, v] of Object.entries(adds)) want[k] = (want[k] ?? 0) + v;
    const t: Timing = { step: name, ms: r.ms };
    if (Object.keys(adds).length > 0) t.webhookMs = (await receiver.until(purchaseId, want, webhookTimeout)) - r.at;
    timings.push(t);
    await afterStep?.(name);
    return r.json;
  };

  const offer = kind === 'pot' ? m.offers.shared : kind === 'installments' ? m.offers.installments3 : m.offers.deferred;
  let purchaseId = '';
  const created = await step(
    'create',
    'POST',
    '/api/merchants/v1/purchases',
    { title: `Lifecycle ${kind} ${n}`, amount: AMOUNT, merchant_uid: offer, client: { email: `leader-${n}@example.com` } },
    201,
    {},
  );
  purchaseId = String(created.id);
  const pur = `pur_${purchaseId}`;

  if (kind === 'pot') {
    const paid = await step(
      'leader pay',
      'POST',
      `/api/sandbox/purchases/${pur}/pay`,
      {
        card_number: CARD,
        pledgers: [
          { email: `friend-a-${n}@example.com`, name: 'Friend A', amount_cents: PLEDGE },
          { email: `friend-b-${n}@example.com`, name: 'Friend B', amount_cents: PLEDGE },
        ],
      },
      200,
      { paymentProcessed: 1 },
    );
    const pledges = (paid.pledges as { id: string }[]).map((p) => p.id);
    if (pledges.length !== 2) throw new Error(`the leader's payment of ${pur} answered ${pledges.length} pledges, expected 2`);
    await step('pledge pay', 'POST', `/api/sandbox/pledges/${pledges[0]}/pay`, { card_number: CARD }, 200, { pledgerContributes: 1 });
    const last = await step('pledge pay', 'POST', `/api/sandbox/pledges/${pledges[1]}/pay`, { card_number: CARD }, 200, { pledgerContributes: 1, purchaseSucceeded: 1 });
    if (last.state !== 'SUCCESSFUL') throw new Error(`the pot ${pur} is ${String(last.state)} after both pledges, expected SUCCESSFUL`);
  } else if (kind === 'installments') {
    await step('leader pay', 'POST', `/api/sandbox/purchases/${pur}/pay`, { card_number: CARD }, 200, { paymentProcessed: 1 });
  } else {
    await step('leader pay', 'POST', `/api/sandbox/purchases/${pur}/pay`, { card_number: CARD }, 200, { paymentProcessed: 1 });
    const signature = signHs256({ merchantUid: m.offers.deferred, purchaseUid: pur }, m.deferredSecret);
    await step('capture trigger', 'POST', `/api/trigger_capture/?signature=${signature}`, undefined, 200, { installmentPaid: 1, purchaseSucceeded: 1 }, undefined);
  }

  if (refunded(n)) {
    await step('refund', 'POST', `/api/merchants/v1/purchases/${purchaseId}/refunds`, { amount: REFUND, reason: 'bench: a share refunded' }, 201, { purchaseRefunded: 1 });
  }
  receiver.forget(purchaseId);
  return timings;
}
