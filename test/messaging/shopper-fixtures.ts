import type { OfferSummary, PurchaseLinkMessage, ShopperNotice } from '../../src/messaging/messenger.ts';

/**
 * One of every shopper message, for the template tests and the accessibility run on the HTML
 * parts (test/browser/shopper-emails.test.ts). Hostile values check the escaping.
 */

export const INSTALLMENTS_3X: OfferSummary = {
  type: 'INSTALLMENTS',
  count: 3,
  lines: [
    { dueDate: '2026-08-01', amountCents: 10_450 },
    { dueDate: '2026-09-01', amountCents: 10_000 },
    { dueDate: '2026-10-01', amountCents: 10_000 },
  ],
  credit: {
    financedCents: 20_000,
    feesCents: 450,
    totalDueCents: 30_450,
    taegPercent: 20,
    mentions: { lender: 'Crédit <Test> SA, 1 rue de la Paix, 75002 Paris', withdrawalDays: 14 },
  },
};

export const DEFERRED_30: OfferSummary = {
  type: 'DEFERRED',
  dueDate: '2026-08-31',
  credit: { financedCents: 30_000, feesCents: 0, totalDueCents: 30_000, taegPercent: 0, mentions: undefined },
};

/** The default down payment offer (30 %, balance 60 days later, free): not a credit. */
export const DOWN_PAYMENT_30: OfferSummary = {
  type: 'DOWN_PAYMENT',
  deposit: { dueDate: '2026-08-01', amountCents: 9_000 },
  balance: { dueDate: '2026-09-30', amountCents: 21_000 },
  credit: { financedCents: 21_000, feesCents: 0, totalDueCents: 30_000, taegPercent: 0, mentions: undefined },
};

/** The same with 1.50 % of fees on the deposit: a credit, with its mentions. */
export const DOWN_PAYMENT_FEES: OfferSummary = {
  type: 'DOWN_PAYMENT',
  deposit: { dueDate: '2026-08-01', amountCents: 9_450 },
  balance: { dueDate: '2026-09-30', amountCents: 21_000 },
  credit: {
    financedCents: 21_000,
    feesCents: 450,
    totalDueCents: 30_450,
    taegPercent: 14.09,
    mentions: { lender: 'Crédit <Test> SA, 1 rue de la Paix, 75002 Paris', withdrawalDays: 14 },
  },
};

export function link(language: string, offer?: OfferSummary): PurchaseLinkMessage {
  return {
    accountId: '00000000-0000-4000-8000-000000000001',
    purchaseId: '00000000-0000-4000-8000-000000000002',
    language,
    merchantName: 'Shoe <Shop>',
    timeZone: 'Europe/Paris',
    title: 'Red sneakers',
    amountCents: 30_000,
    currency: 'EUR',
    url: 'https://pay.chipin.example/pay/pur_5f0c6b1e-8d1e-4f7a-9a57-3c1f1d2e4b6a',
    firstName: 'Alice',
    ...(offer ? { offer } : {}),
  };
}

export function notices(language: string): ShopperNotice[] {
  const base = { ...link(language), key: 'k', name: 'Alice', card: { brand: 'visa', last4: '4242' } };
  const inst = { index: 1, count: 3, dueDate: '2026-09-01', amountCents: 10_000 };
  const balance = { index: 1, count: 2, dueDate: '2026-09-30', amountCents: 21_000, balance: true as const };
  return [
    {
      ...base,
      kind: 'leader_receipt',
      chargedCents: 5_000,
      heldCents: 5_000,
      offer: { type: 'SHARED' },
      pot: { deadline: new Date('2026-08-03T12:00:00Z'), invited: 2, pledgedCents: 5_000 },
    },
    { ...base, kind: 'leader_receipt', chargedCents: 30_000, heldCents: 0, offer: { type: 'SHARED' } },
    { ...base, kind: 'leader_receipt', chargedCents: 10_450, heldCents: 0, offer: INSTALLMENTS_3X },
    { ...base, kind: 'leader_receipt', chargedCents: 0, heldCents: 30_000, offer: DEFERRED_30 },
    {
      ...base,
      card: undefined,
      name: 'Bob',
      kind: 'pledge_receipt',
      chargedCents: 2_500,
      inviterName: 'Alice <Martin>',
      leftCents: 2_500,
      deadline: new Date('2026-08-03T12:00:00Z'),
    },
    { ...base, kind: 'installment_receipt', installment: inst, next: { dueDate: '2026-10-01', amountCents: 10_000 } },
    { ...base, kind: 'precharge', installment: inst },
    { ...base, kind: 'charge_failed', installment: inst, retryOn: '2026-09-02', payUrl: 'https://pay.example.com/space/purchases/pur_0b1f6f1e-5c43-4b4e-9f47-0a1b2c3d4e5f' },
    { ...base, kind: 'charge_failed', installment: inst },
    { ...base, kind: 'rest_failed', restCents: 2_500 },
    { ...base, kind: 'hold_renewal_failed', heldCents: 5_000, lapsesAt: new Date('2026-08-07T12:00:00Z'), dueAt: new Date('2026-08-31T00:00:00Z') },
    { ...base, kind: 'pot_complete', releasedCents: 5_000 },
    { ...base, kind: 'rest_charged', restCents: 2_500, chargedCents: 7_500, fromHold: true },
    { ...base, kind: 'refund', refundCents: 3_000, chargedCents: 7_500, refundedCents: 3_000, reason: 'merchant' },
    { ...base, kind: 'refund', refundCents: 2_500, chargedCents: 2_500, refundedCents: 2_500, reason: 'given_back' },
    // A 3x plan's refunds: one that only lowers what is left to collect, one that ends the plan and pays back part of what was charged.
    {
      ...base,
      kind: 'refund',
      refundCents: 0,
      chargedCents: 10_450,
      refundedCents: 0,
      reason: 'merchant',
      lowered: { cents: 12_000, remaining: [{ dueDate: '2026-09-01', amountCents: 8_000 }] },
    },
    { ...base, kind: 'refund', refundCents: 1_000, chargedCents: 10_450, refundedCents: 1_000, reason: 'merchant', lowered: { cents: 8_000, remaining: [] } },
    // A down payment: the receipt of its deposit, then its balance's reminder, receipt and refusal.
    { ...base, kind: 'leader_receipt', chargedCents: 9_450, heldCents: 0, offer: DOWN_PAYMENT_FEES },
    { ...base, kind: 'precharge', installment: balance },
    { ...base, kind: 'installment_receipt', installment: balance },
    { ...base, kind: 'charge_failed', installment: balance, retryOn: '2026-10-01', payUrl: 'https://pay.example.com/space/purchases/pur_0b1f6f1e-5c43-4b4e-9f47-0a1b2c3d4e5f' },
  ];
}
