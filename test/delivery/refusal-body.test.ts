import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { notificationSigningString, verifyNotificationSignature } from '../../src/delivery/notification-signature.ts';
import { buildRefusalNotification, refusalOf } from '../../src/delivery/refusal-notification.ts';
import { contractSignature } from './helpers.ts';

// The refusal notification's body, pure (docs/webhooks.md#refusal-notifications).

const code = fc.stringMatching(/^[a-z_]{1,30}$/);
const ruleCode = fc.stringMatching(/^[A-Z_]{1,30}$/);

describe('refusal notification body', () => {
  it('reads the refusal of a payment.failed event (risk reasons included) and of a pledge’s failed transaction only', () => {
    expect(refusalOf({ type: 'payment.failed', data: { reason: 'card_declined', payment_id: 'p1', attempt: 2 } })).toEqual({
      reason: 'card_declined',
      paymentId: 'p1',
      pspTransactionId: undefined,
      payer: 'leader',
      attempt: 2,
      risk: undefined,
    });
    expect(refusalOf({ type: 'payment.failed', data: { reason: 'risk_refused', payment_id: 'p1', risk: { decision_id: 'd1', reasons: ['CARD_PREPAID', 7] } } })?.risk).toEqual({
      decisionId: 'd1',
      reasons: ['CARD_PREPAID'],
    });
    expect(refusalOf({ type: 'payment.failed', data: null })?.reason).toBe('processing_error');
    const pledge = (status: string, purpose = 'pledge') => ({
      type: 'payment.transaction',
      data: { purpose, payment_id: 'p2', transaction: { id: 'tx', status, created_at: '2026-01-01T00:00:00.000Z', error: { code: 'insufficient_funds', message: 'No money' } } },
    });
    expect(refusalOf(pledge('failed'))).toMatchObject({ reason: 'insufficient_funds', pspTransactionId: 'tx', payer: 'pledger' });
    expect(refusalOf(pledge('completed'))).toBeUndefined();
    expect(refusalOf(pledge('failed', 'leader_share'))).toBeUndefined();
    expect(refusalOf({ type: 'purchase.failed', data: { reason: 'card_declined' } })).toBeUndefined();
  });

  it('is signed as back-mode notifications are, the reason code included, whatever the reasons and references', () => {
    fc.assert(
      fc.property(code, fc.array(ruleCode, { maxLength: 5 }), fc.string(), fc.string({ minLength: 1 }), code, (reason, reasons, reference, secret, other) => {
        const body = buildRefusalNotification(
          {
            refusal: { reason, paymentId: 'p1', pspTransactionId: undefined, payer: 'leader', attempt: 1, risk: reasons.length ? { decisionId: 'd1', reasons } : undefined },
            createdAt: new Date('2026-03-04T10:15:00.123Z'),
            storedPspTransactionId: 'psp_tx_9',
            reference,
            metadata: { order: 'A-1' },
            sandbox: false,
          },
          secret,
        );
        expect(body.signature).toBe(contractSignature(body as unknown as Record<string, unknown>, secret));
        expect(verifyNotificationSignature(body as unknown as Record<string, unknown>, secret)).toBe(true);
        expect(notificationSigningString(body as unknown as Record<string, unknown>, secret)).toContain(`error=${reason}`);
        expect(body).toMatchObject({ id: 'psp_tx_9', status: 'failed', sandbox: 'false', error: reason });
        if (other !== reason) expect(verifyNotificationSignature({ ...body, error: other } as unknown as Record<string, unknown>, secret)).toBe(false);
      }),
      { seed: 32, numRuns: 200 },
    );
  });
});
