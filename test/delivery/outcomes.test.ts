import { describe, expect, it } from 'vitest';
import { buildErrorNotification } from '../../src/delivery/error-notification.ts';
import { verifyHs256 } from '../../src/delivery/jwt.ts';
import { backModeNotificationOf, endsPot, errorStateOf, purchaseEndBody } from '../../src/delivery/outcomes.ts';
import { asCheckoutOutcome } from '../../src/delivery/transaction.ts';

// Which events reach the merchant's back end (docs/webhooks.md#back-mode-notification, #error-notification). Pure.
describe('outcomes told to the merchant', () => {
  const tx = (status: string, extra: Record<string, unknown> = {}) => ({
    type: 'payment.transaction',
    from_state: 'CREATED',
    data: { purpose: 'deferred', transaction: { id: 't', status }, ...extra },
  });

  it('the checkout secured, and the transactions the merchant asked for; nothing of the purchase inner workings', () => {
    expect(backModeNotificationOf({ type: 'purchase.leader_processed', from_state: 'CREATED', data: {} })).toEqual({ kind: 'checkout' });
    expect(backModeNotificationOf(tx('refunded', { outcome: true }))).toEqual({ kind: 'transaction' });
    for (const status of ['authorized', 'completed', 'failed', 'voided', 'refunded']) expect(backModeNotificationOf(tx(status)), status).toBeUndefined();
    for (const type of ['payment.failed', 'purchase.failed', 'purchase.succeeded', 'pledge.paid', 'installment.failed']) {
      expect(backModeNotificationOf({ type, from_state: 'CREATED', data: {} }), type).toBeUndefined();
    }
  });

  it('an accepted checkout transaction is `completed` whatever the card holds; a refused one stays as it is', () => {
    expect(asCheckoutOutcome({ id: 't', status: 'authorized', created_at: 'x' })).toMatchObject({ status: 'completed', error: '' });
    expect(asCheckoutOutcome({ id: 't', status: 'completed', created_at: 'x' }).status).toBe('completed');
    expect(asCheckoutOutcome({ id: 't', status: 'failed', created_at: 'x', error: 'card_declined' })).toMatchObject({ status: 'failed', error: 'card_declined' });
  });

  it('an error notification only for a purchase that failed before it was secured: SCORING_KO for the risk rules, PRIMARY_KO otherwise', () => {
    expect(errorStateOf({ type: 'purchase.failed', from_state: 'CREATED', data: { reason: 'card_declined' } })).toBe('PRIMARY_KO');
    expect(errorStateOf({ type: 'purchase.failed', from_state: 'CREATED', data: { reason: 'risk_refused' } })).toBe('SCORING_KO');
    expect(errorStateOf({ type: 'purchase.failed', from_state: 'LEADER_PROCESSED', data: {} })).toBeUndefined();
    expect(errorStateOf({ type: 'payment.failed', from_state: 'CREATED', data: { reason: 'card_declined' } })).toBeUndefined();
  });

  it("a pot's end: a SHARED purchase leaving LEADER_PROCESSED for SUCCESSFUL or FAILED, and nothing else", () => {
    const move = (type: string, from_state: string) => ({ type, from_state, data: {} });
    expect(endsPot(move('purchase.succeeded', 'LEADER_PROCESSED'), 'SHARED')).toBe(true);
    expect(endsPot(move('purchase.failed', 'LEADER_PROCESSED'), 'SHARED')).toBe(true);
    expect(endsPot(move('purchase.succeeded', 'LEADER_PROCESSED'), 'INSTALLMENTS')).toBe(false);
    expect(endsPot(move('purchase.failed', 'CREATED'), 'SHARED')).toBe(false);
    expect(endsPot(move('purchase.cancelled', 'LEADER_PROCESSED'), 'SHARED')).toBe(false);
    expect(endsPot(move('purchase.leader_processed', 'CREATED'), 'SHARED')).toBe(false);
    expect(JSON.parse(purchaseEndBody(null, 'pur_1'))).toEqual({ reference: '', uid: 'pur_1' });
  });

  it("the error notification is the interface's body as the claims of a JWT signed with the offer's secret", () => {
    const body = JSON.parse(buildErrorNotification({ reference: null, purchaseUid: 'pur_1', state: 'PRIMARY_KO' }, 'S')) as { signature: string };
    expect(Object.keys(body)).toEqual(['signature']);
    expect(verifyHs256(body.signature, 'S')).toEqual({ reference: '', purchase_state: 'PRIMARY_KO', purchase_uid: 'pur_1', state: 'PRIMARY_KO' });
    expect(verifyHs256(body.signature, 'T')).toBeUndefined();
  });
});
