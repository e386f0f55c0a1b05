/**
 * What the merchant's front end is told after the leader's checkout when the payment went
 * through the card processor (Lyra): its variant of the result, or the contract's error when the
 * processor did not accept the authorisation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyHs256 } from '../../src/delivery/jwt.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { leaderFrontOutcome } from '../../src/use-cases/checkout/leader-front-outcome.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { insertPayment, recordResult } from '../../src/money/payment-record-repository.ts';
import { leaderProcessed, newLinkPurchase, NO_JOB_POLL, pspAccount, TEST_DELIVERY } from '../delivery/helpers.ts';

let db: IsolatedDatabase;
let app: TestApp;
let m: Caller;
beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: db.open(), delivery: TEST_DELIVERY });
  m = await caller(app);
});
afterAll(async () => {
  await app?.close();
  await db?.dispose();
});

const offerSecret = () => m.merchant.offers.find((o) => o.type === 'SHARED')!.secret;

/** A LEADER_PROCESSED purchase whose leader payment went through Lyra with `statusLabel` (on a PSP account in `environment`). */
async function paidThroughLyra(statusLabel: string, environment: 'test' | 'live' = 'test') {
  const id = await newLinkPurchase(m, { reference: 'ORDER-L', metadata: { cart: 'c-1' } });
  await leaderProcessed(app, m, id);
  const payment = await insertPayment(
    app.services.db,
    {
      accountId: m.accountId,
      purchaseId: id,
      purpose: 'leader_share',
      psp: 'lyra',
      pspAccountId: await pspAccount(app, m, environment),
      idempotencyKey: `lfo-${id}`,
      amountCents: 30_000,
    },
    app.services.clock.now(),
  );
  // As the payment flows record a Lyra connector's answer: the event's data comes from recordResult.
  const processor = { uid: '971b6b3b9e364e87bfbe9886b3a75df4', legacyId: '900147', reference: 'chipin-ab', statusLabel };
  const result = { transactionId: 'chipin-ab', status: 'captured' as const, amountCents: 30_000, capturedCents: 30_000, refundedCents: 0, processor };
  expect(await recordResult(app.services.db, payment, result, 'LEADER_PROCESSED', app.services.clock.now())).toBe(true);
  return (await findPurchase(app.services.db, m.accountId, id))!;
}

describe(`leader front outcome, card-processor variant (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('AUTHORISED: onSuccess gets transaction {id: old id, uid, reference, status: AUTHORISED}, signed with the offer secret', async () => {
    const purchase = await paidThroughLyra('AUTHORISED');
    const told = await leaderFrontOutcome(app.services.payments, purchase);
    expect(told?.type).toBe('chipin:result');
    if (told?.type !== 'chipin:result') return;
    expect(told.result.transaction).toEqual({
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      error: null,
      id: '900147',
      reference: 'chipin-ab',
      sandbox: true,
      status: 'AUTHORISED',
      uid: '971b6b3b9e364e87bfbe9886b3a75df4',
    });
    expect(verifyHs256(told.jwt!, offerSecret())).toEqual(told.result);
  });

  it('not AUTHORISED (Lyra still verifying it): onError gets {code, message, purchase_uid, retryable, type: bad_gateway}, and the signed error names the transaction', async () => {
    const purchase = await paidThroughLyra('UNDER_VERIFICATION');
    const told = await leaderFrontOutcome(app.services.payments, purchase);
    expect(told?.type).toBe('chipin:error');
    if (told?.type !== 'chipin:error') return;
    const uid = `pur_${purchase.id}`;
    // The merchant's card processor did not accept the payment: the original provider's `bad_gateway`.
    expect(told.error).toEqual({ code: 'processing_error', message: 'The payment could not be completed.', purchase_uid: uid, retryable: false, type: 'bad_gateway' });
    const claims = verifyHs256(told.jwt!, offerSecret()) as Record<string, unknown>;
    expect(claims).toMatchObject({
      error: told.error,
      purchase: { reference: 'ORDER-L', uid },
      transaction: { uid: '971b6b3b9e364e87bfbe9886b3a75df4', status: 'UNDER_VERIFICATION' },
    });
  });

  it('transaction.sandbox follows the PSP account the payment ran on: false on a live account', async () => {
    const told = await leaderFrontOutcome(app.services.payments, await paidThroughLyra('AUTHORISED', 'live'));
    expect(told).toMatchObject({ type: 'chipin:result', result: { transaction: { sandbox: false, status: 'AUTHORISED' } } });
  });
});
