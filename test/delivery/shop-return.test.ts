import { describe, expect, it } from 'vitest';
import { signHs256, verifyHs256, verifyHs256Claims } from '../../src/delivery/jwt.ts';
import { pledgErrorType, shopReturnUrl } from '../../src/delivery/shop-return.ts';

const purchase = { id: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70', callbackUrl: 'https://shop.example/ok?order=7', cancelUrl: 'https://shop.example/?cancel_order=true&order_id=7' };
const SECRET = 'offer-secret';
const result = {
  transaction: { created_at: '2026-03-04T10:15:00.000Z', error: null, id: 'psp_tx_42', sandbox: true, status: 'completed' },
  purchase: { meta_data: {}, reference: 'ORDER-7', uid: `pur_${purchase.id}` },
};

/** What a PHP plugin reads of a query parameter: `json_decode(stripslashes($_GET[name]))` (woocommerce-pledg.php, StatusAction.php). */
const php = (url: string, name: string) => JSON.parse(new URL(url).searchParams.get(name)!) as Record<string, unknown>;

describe('the return to the shop (docs/plugin-integration.md#the-return-to-the-shop)', () => {
  it('a success goes to the callback with result (the JWT) and pledg_result (the result JSON, with its signature)', () => {
    const jwt = signHs256(result, SECRET);
    const url = shopReturnUrl(purchase, 'LEADER_PROCESSED', { kind: 'result', result, jwt })!;
    const u = new URL(url);
    expect(u.origin + u.pathname).toBe('https://shop.example/ok');
    expect(u.searchParams.get('order')).toBe('7');
    expect(u.searchParams.get('purchase_uid')).toBe(`pur_${purchase.id}`);
    expect(u.searchParams.get('state')).toBe('LEADER_PROCESSED');
    expect(u.searchParams.get('result')).toBe(jwt);
    // Sylius reads transaction.status from it; the signature verifies to the same result.
    const pledg = php(url, 'pledg_result');
    expect((pledg.transaction as { status: string }).status).toBe('completed');
    expect(verifyHs256(pledg.signature as string, SECRET)).toEqual(result);
    expect(u.searchParams.has('pledg_error')).toBe(false);
  });

  it('without a secret, pledg_result is the result alone and no result parameter is sent', () => {
    const url = shopReturnUrl(purchase, 'LEADER_PROCESSED', { kind: 'result', result, jwt: null })!;
    expect(php(url, 'pledg_result')).toEqual(result);
    expect(new URL(url).searchParams.has('result')).toBe(false);
  });

  it('a failure goes to the cancel URL with pledg_error {type, message, signature}: the signature holds error.type and error.message, as WooCommerce decodes it', () => {
    const jwt = signHs256({ error: { code: 'card_declined', type: 'payment_refused', message: 'The card was declined.' }, purchase: result.purchase, transaction: null }, SECRET);
    const url = shopReturnUrl(purchase, 'FAILED', { kind: 'error', type: 'payment_refused', message: 'The card was declined.', jwt })!;
    expect(url.startsWith('https://shop.example/?cancel_order=true&order_id=7&')).toBe(true);
    const pledg = php(url, 'pledg_error');
    expect(pledg).toEqual({ type: 'payment_refused', message: 'The card was declined.', signature: jwt });
    const claims = verifyHs256(pledg.signature as string, SECRET) as { error: { type: string; message: string } };
    expect(claims.error).toMatchObject({ type: 'payment_refused', message: 'The card was declined.' });
    expect(new URL(url).searchParams.get('error')).toBe(jwt);
  });

  it('a failure goes to the callback when there is no cancel URL', () => {
    const url = shopReturnUrl({ ...purchase, cancelUrl: null }, 'FAILED', { kind: 'error', type: 'payment_refused', message: 'm', jwt: null })!;
    expect(url.startsWith('https://shop.example/ok?order=7&')).toBe(true);
    expect(php(url, 'pledg_error')).toEqual({ type: 'payment_refused', message: 'm' });
  });

  it('a cancel says abandonment (the plugins then cancel the order without an error), and nothing goes nowhere', () => {
    const url = shopReturnUrl(purchase, 'INITIALIZED', { kind: 'cancel' })!;
    expect(php(url, 'pledg_error')).toEqual({ type: 'abandonment', message: 'The shopper cancelled the payment.' });
    expect(shopReturnUrl({ ...purchase, callbackUrl: null, cancelUrl: null }, 'INITIALIZED', { kind: 'cancel' })).toBeUndefined();
  });

  it('error types are the integration guide types', () => {
    expect(pledgErrorType('card_declined', 'card_declined', false)).toBe('payment_refused');
    expect(pledgErrorType('payment_failed', 'risk_refused', false)).toBe('not_eligible');
    expect(pledgErrorType('processing_error', undefined, true)).toBe('bad_gateway');
    expect(pledgErrorType('purchase_expired', undefined, false)).toBe('abandonment');
    expect(pledgErrorType('authentication_failed', 'authentication_failed', false)).toBe('payment_refused');
  });
});

describe('JWT time claims', () => {
  const now = new Date('2026-03-04T10:00:00Z');
  const t = now.getTime() / 1000;
  it('accepts a token without exp, or before exp (with 30 s of skew), and refuses it after', () => {
    expect(verifyHs256Claims(signHs256({ data: {} }, SECRET), SECRET, now)).toMatchObject({ ok: true });
    expect(verifyHs256Claims(signHs256({ exp: t - 10 }, SECRET), SECRET, now)).toMatchObject({ ok: true });
    expect(verifyHs256Claims(signHs256({ exp: t - 31 }, SECRET), SECRET, now)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyHs256Claims(signHs256({ nbf: t + 60 }, SECRET), SECRET, now)).toEqual({ ok: false, reason: 'not_yet_valid' });
    expect(verifyHs256Claims(signHs256({ exp: 'tomorrow' }, SECRET), SECRET, now)).toEqual({ ok: false, reason: 'invalid' });
  });
  it('refuses another secret, a changed payload and another algorithm', () => {
    const token = signHs256({ data: { amountCents: 100 } }, SECRET);
    expect(verifyHs256Claims(token, 'other', now)).toEqual({ ok: false, reason: 'invalid' });
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ data: { amountCents: 1 } })).toString('base64url')}.${s}`;
    expect(verifyHs256Claims(forged, SECRET, now)).toEqual({ ok: false, reason: 'invalid' });
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(verifyHs256Claims(none, SECRET, now)).toEqual({ ok: false, reason: 'invalid' });
  });
});
