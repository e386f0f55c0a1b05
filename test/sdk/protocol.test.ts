import { describe, expect, it } from 'vitest';
import { errorCodeOf, frontError } from '../../src/delivery/front-error.ts';
import { Csrf } from '../../src/pages/csrf.ts';
import { acceptMessage, frameUrl, merchantOrigin, originOf, parseMessage } from '../../src/sdk/protocol.ts';

const UID = 'pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70';
const CHIPIN = 'https://pay.chipin.example';
const result = { chipin: 1, type: 'chipin:result', purchase_uid: UID, result: { transaction: { status: 'completed' }, purchase: { uid: UID } }, jwt: 'a.b.c' };
const error = {
  chipin: 1,
  type: 'chipin:error',
  purchase_uid: UID,
  error: { code: 'card_declined', message: 'The card was declined.', purchase_uid: UID, retryable: false },
  jwt: null,
};

describe('message protocol', () => {
  it('parses exactly the three message types', () => {
    expect(parseMessage(result)).toEqual(result);
    expect(parseMessage(error)).toEqual(error);
    expect(parseMessage({ chipin: 1, type: 'chipin:cancel', purchase_uid: UID })).toEqual({ chipin: 1, type: 'chipin:cancel', purchase_uid: UID });
  });

  it('refuses malformed or foreign data', () => {
    for (const bad of [
      null,
      'chipin:result',
      [],
      { ...result, chipin: 2 },
      { ...result, type: 'chipin:other' },
      { ...result, purchase_uid: 'pur_nope' },
      { ...result, jwt: 'not a jwt' },
      { ...result, result: { transaction: {}, purchase: { uid: 'pur_5f0c6c2e-8f7b-4d5e-9c1a-000000000000' } } },
      { ...result, result: { purchase: { uid: UID } } },
      { ...error, error: { ...error.error, code: 'made_up' } },
      { ...error, error: { ...error.error, purchase_uid: 'pur_5f0c6c2e-8f7b-4d5e-9c1a-000000000000' } },
      { ...error, error: { ...error.error, retryable: 'no' } },
    ]) {
      expect(parseMessage(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("drops extra fields: only the protocol's members reach the callbacks", () => {
    expect(parseMessage({ ...error, card_number: '4242424242424242', error: { ...error.error, extra: 1 } })).toEqual(error);
  });
});

describe('origin checks', () => {
  const frame = {};
  const expected = { chipinOrigin: CHIPIN, frame, purchaseUid: UID };

  it("the SDK accepts a message only from Chipin's origin, from its own frame, about its purchase", () => {
    expect(acceptMessage({ origin: CHIPIN, source: frame, data: result }, expected)).toEqual(result);
    expect(acceptMessage({ origin: 'https://evil.example', source: frame, data: result }, expected)).toBeUndefined();
    expect(acceptMessage({ origin: 'https://pay.chipin.example:8443', source: frame, data: result }, expected)).toBeUndefined();
    expect(acceptMessage({ origin: CHIPIN, source: {}, data: result }, expected)).toBeUndefined();
    expect(acceptMessage({ origin: CHIPIN, source: null, data: result }, { ...expected, frame: null })).toBeUndefined();
    expect(acceptMessage({ origin: CHIPIN, source: frame, data: result }, { ...expected, purchaseUid: 'pur_5f0c6c2e-8f7b-4d5e-9c1a-000000000000' })).toBeUndefined();
  });

  it("the hosted page posts to the merchant origin (callback URL), else to Chipin's own, never *", () => {
    expect(merchantOrigin('https://shop.example/chipin/done?x=1', CHIPIN)).toBe('https://shop.example');
    expect(merchantOrigin('http://127.0.0.2:8080/done', CHIPIN)).toBe('http://127.0.0.2:8080');
    expect(merchantOrigin(null, CHIPIN)).toBe(CHIPIN);
    expect(merchantOrigin('javascript:alert(1)', CHIPIN)).toBe(CHIPIN);
    expect(merchantOrigin('not a url', CHIPIN)).toBe(CHIPIN);
    expect(originOf('data:text/html,x')).toBeUndefined();
  });

  it('the SDK frames only a payment page of its own Chipin origin, marked embed=1', () => {
    expect(frameUrl({ paymentUrl: `${CHIPIN}/pay/${UID}` }, CHIPIN, 'overlay')).toEqual({ url: `${CHIPIN}/pay/${UID}?embed=1`, purchaseUid: UID });
    expect(frameUrl({ purchaseUid: UID, lang: 'fr' }, CHIPIN, 'overlay')).toEqual({ url: `${CHIPIN}/pay/${UID}?embed=1&lang=fr`, purchaseUid: UID });
    expect(frameUrl({ purchaseUid: UID }, CHIPIN, 'redirect')).toEqual({ url: `${CHIPIN}/pay/${UID}`, purchaseUid: UID });
    expect(frameUrl({ paymentUrl: `https://evil.example/pay/${UID}` }, CHIPIN, 'overlay')).toBeUndefined();
    expect(frameUrl({ paymentUrl: `${CHIPIN}/sandbox/inbox` }, CHIPIN, 'overlay')).toBeUndefined();
    expect(frameUrl({ purchaseUid: '../sandbox/inbox' }, CHIPIN, 'overlay')).toBeUndefined();
    expect(frameUrl({}, CHIPIN, 'overlay')).toBeUndefined();
    expect(frameUrl({ purchaseUid: UID, lang: '"><script>' }, CHIPIN, 'overlay')!.url).toBe(`${CHIPIN}/pay/${UID}?embed=1`);
  });
});

describe('error objects', () => {
  it('map decline reasons to documented codes; unknown ones read payment_failed', () => {
    expect(errorCodeOf('authentication_failed')).toBe('authentication_failed');
    expect(errorCodeOf('Something odd')).toBe('payment_failed');
    expect(frontError('purchase_aborted', UID, false)).toEqual({ code: 'purchase_aborted', message: 'The merchant aborted the purchase.', purchase_uid: UID, retryable: false });
  });
});

describe('cookie-less CSRF token (framed pages)', () => {
  const csrf = new Csrf(Buffer.alloc(32, 7));
  const now = Date.UTC(2026, 2, 4);

  it('is bound to its form and expires after a day', () => {
    const token = csrf.frameToken(UID, now);
    expect(csrf.verifyFrameToken(UID, token, now + 3_600_000)).toBe(true);
    expect(csrf.verifyFrameToken('pur_other', token, now)).toBe(false);
    expect(csrf.verifyFrameToken(UID, token, now + 86_401_000)).toBe(false);
    expect(
      csrf.verifyFrameToken(
        UID,
        token.replace(/^\d+/, (s) => String(Number(s) + 10)),
        now,
      ),
    ).toBe(false);
    expect(new Csrf(Buffer.alloc(32, 8)).verifyFrameToken(UID, token, now)).toBe(false);
    expect(csrf.verifyFrameToken(UID, undefined, now)).toBe(false);
  });
});
