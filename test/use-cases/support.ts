import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { CardInput } from '../../src/psp/connector.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import type { OfferType } from '../../src/domain/offer-terms.ts';

/** The sandbox PSP's test cards (docs/psp-connectors.md). */
export const CARDS = {
  ok: '4242424242424242',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  offSessionFails: '4000000000000341',
} as const;

export const card = (number: string): CardInput => ({ number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123', holderName: 'Test Shopper' });

/** A merchant whose purchases the use cases act on, created through the API as merchants do. */
export interface Shop extends Omit<Caller, 'offer'> {
  /** The offer itself (its secret signs `trigger_capture`), not only its `merchant_uid`. */
  offer(type: OfferType, installments?: number): CreatedMerchant['offers'][number];
  /** Creates a purchase (CREATED) and answers its bare uuid. */
  purchase(over?: Record<string, unknown>): Promise<string>;
}

export async function newShop(app: TestApp): Promise<Shop> {
  const merchant = await caller(app);
  const offer: Shop['offer'] = (type, installments) => merchant.merchant.offers.find((o) => o.type === type && (installments === undefined || o.installments === installments))!;
  return {
    ...merchant,
    offer,
    async purchase(over = {}) {
      const res = await merchant.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, merchant_uid: offer('SHARED').merchant_uid, ...over }));
      if (res.statusCode !== 201) throw new Error(`purchase creation failed: ${res.statusCode} ${res.body}`);
      return res.json().id as string;
    },
  };
}

/** Completes (or fails) a sandbox 3-D Secure challenge as the shopper would on its page. */
export async function answerChallenge(app: TestApp, challengeUrl: string, outcome: 'complete' | 'fail'): Promise<void> {
  const path = new URL(challengeUrl).pathname;
  const page = await app.server.inject(path);
  const token = /name="token" value="([^"]+)"/.exec(page.body)?.[1];
  if (!token) throw new Error('no token on the challenge page');
  const res = await app.server.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ outcome, token }).toString(),
  });
  if (res.statusCode !== 303) throw new Error(`challenge answer failed: ${res.statusCode}`);
}

/** Every payment row of a purchase, oldest first. */
export async function paymentsOf(app: TestApp, purchaseId: string) {
  const { rows } = await app.services.db.query<{ purpose: string; status: string; amount_cents: number; captured_cents: number }>(
    'SELECT purpose, status, amount_cents, captured_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at, purpose',
    [purchaseId],
  );
  return rows;
}

/**
 * The service clock as the use cases see it, jumped forward by the test as `POST
 * /api/sandbox/clock` jumps it (the flows of one test share it; the app's own clock stays).
 */
export function jumpingClock(base: Clock): Clock & { jump(ms: number): void } {
  let offset = 0;
  return { now: () => new Date(base.now().getTime() + offset), jump: (ms) => void (offset += ms) };
}
