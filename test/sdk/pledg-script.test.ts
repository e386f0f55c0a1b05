import { describe, expect, it } from 'vitest';
import { acceptHostMessage, acceptPledgMessage, parsePledgMessage } from '../../src/sdk/pledg-protocol.ts';
import { pledgBundle } from '../../src/sdk/build.ts';
import { paymentError, purchaseQuery, settingsProblem } from '../../src/sdk/pledg-settings.ts';
import { scriptWords } from '../../src/sdk/words.ts';

/**
 * The Pledg script's pure parts: the settings it refuses before opening anything (onError
 * `invalid_request_error`, no frame), the `/purchase` query it opens, and the messages it hears
 * (and the page hears from it). The script itself runs in Chromium: test/browser/pledg-script.test.ts.
 */

const MER = 'mer_0b6c2a8e-1d3f-4c5b-9a7e-6f8d0c1b2a3e';
const UID = 'pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70';
const OTHER = 'pur_5f0c6c2e-8f7b-4d5e-9c1a-000000000000';
const CHIPIN = 'https://pay.chipin.example';
const SHOP = 'https://shop.example';
const noop = () => undefined;

// What prestashop1.7's views/templates/front/iframe.tpl:51-99 passes without a secret: amountCents as a string, objects inlined.
const prestashop = {
  containerElement: {},
  paymentNotificationUrl: 'https://shop.example/module/pledg/notification?pledgPayment=1',
  merchantUid: MER,
  title: 'Mug',
  reference: 'PLEDG_12_1700000000',
  amountCents: '3050',
  currency: 'EUR',
  civility: 'Mr',
  firstName: 'Léa',
  lastName: 'Martin',
  email: 'lea@example.com',
  countryCode: 'FR',
  metadata: { plugin: 'prestashop-pledg-plugin', products: [{ reference: 'MUG', quantity: 1 }] },
  address: { street: '1 rue de la Paix', city: 'Paris', zipcode: '75002', stateProvince: '', country: 'FR' },
  shippingAddress: { street: '1 rue de la Paix', city: 'Paris', zipcode: '75002', stateProvince: '', country: 'FR' },
  phoneNumber: '+33612345678',
  lang: 'fr_FR',
  showCloseButton: false,
  onSuccess: noop,
  onError: noop,
  onOpen: noop,
};

describe('settings', () => {
  it("accepts what the plugins pass: prestashop's string amount, magento's float amount and snake-case shipping_address, a signature alone", () => {
    expect(settingsProblem(prestashop)).toBeUndefined();
    // magento Block/Checkout/Pay.php:75-90: round(total * 100) is a float; shipping_address in snake case.
    expect(settingsProblem({ merchantUid: MER, amountCents: 1998.9999999999998, email: 'a@b.co', shipping_address: { city: 'Brest' }, showCloseButton: true })).toBeUndefined();
    // magento with a secret key (Pay.php:101-108) and prestashop with one (iframe.tpl:54-55): the signature and the script's own settings.
    expect(
      settingsProblem({ signature: 'aaa.bbb.ccc', containerElement: {}, paymentNotificationUrl: 'https://shop.example/n', showCloseButton: false, onSuccess: noop }),
    ).toBeUndefined();
    // An email left empty (the provider's example fills it in from a field later, with configure).
    expect(settingsProblem({ merchantUid: MER, amountCents: 100, email: '' })).toBeUndefined();
  });

  it('refuses, naming the property, what cannot open a payment', () => {
    const base = { merchantUid: MER, amountCents: 100, email: 'a@b.co' };
    const cases: [unknown, string][] = [
      [null, 'The settings must be an object'],
      [{ amountCents: 100 }, 'The property merchantUid is missing'],
      [{ ...base, merchantUid: 'mer_uid' }, 'The provided property merchantUid is invalid'],
      [{ ...base, amountCents: undefined }, 'The property amountCents is missing'],
      [{ ...base, amountCents: '30.5x' }, 'amountCents must be a whole number of cents'],
      [{ ...base, amountCents: 100.5 }, 'amountCents must be a whole number of cents (a fraction of a cent is not rounded)'],
      [{ ...base, amountCents: -1 }, 'amountCents must not be negative'],
      [{ ...base, amountCents: 0 }, 'amountCents must be greater than 0'],
      [{ ...base, email: 'not an email' }, 'The provided property email is invalid'],
      [{ ...base, currency: 'EURO' }, 'The provided property currency is invalid'],
      [{ ...base, onSuccess: 'go' }, 'The provided property onSuccess is invalid'],
      [{ ...base, showCloseButton: 'no' }, 'The provided property showCloseButton is invalid'],
      [{ ...base, title: { text: 'x' } }, 'The provided property title is invalid'],
      [{ ...base, address: ['1 rue'] }, 'The provided property address is invalid'],
      [{ signature: 'not a jwt', merchantUid: MER }, 'The provided property signature is invalid'],
    ];
    for (const [settings, message] of cases) expect(settingsProblem(settings), JSON.stringify(settings)).toBe(message);
  });

  it('opens /purchase with the settings Chipin reads (objects as JSON, the amount as read), then embed and parent_origin; a signature alone when signed', () => {
    const q = new URLSearchParams(purchaseQuery(prestashop, SHOP));
    expect([...q.keys()]).toEqual([
      'paymentNotificationUrl',
      'merchantUid',
      'title',
      'reference',
      'amountCents',
      'currency',
      'civility',
      'firstName',
      'lastName',
      'email',
      'countryCode',
      'metadata',
      'address',
      'shippingAddress',
      'phoneNumber',
      'lang',
      'embed',
      'parent_origin',
    ]);
    expect(q.get('amountCents')).toBe('3050');
    expect(JSON.parse(q.get('address')!)).toEqual(prestashop.address);
    expect(q.get('embed')).toBe('1');
    expect(q.get('parent_origin')).toBe(SHOP);
    expect(new URLSearchParams(purchaseQuery({ merchantUid: MER, amountCents: 1998.9999999999998 }, SHOP)).get('amountCents')).toBe('1999');
    expect(purchaseQuery({ signature: 'aaa.bbb.ccc', paymentNotificationUrl: 'https://shop.example/n', onSuccess: noop }, SHOP)).toBe(
      `signature=aaa.bbb.ccc&embed=1&parent_origin=${encodeURIComponent(SHOP)}`,
    );
  });

  it('an error that ends the payment keeps the type the page gave it, else payment_refused, with Chipin’s sentence', () => {
    expect(paymentError({ message: 'The card was declined.' })).toEqual({ type: 'payment_refused', message: 'The card was declined.' });
    expect(paymentError({ message: 'The payment failed.', type: 'not_eligible' })).toEqual({ type: 'not_eligible', message: 'The payment failed.' });
  });
});

describe('messages the script hears', () => {
  const frame = {};
  const ready = { chipin: 1, type: 'chipin:ready', purchase_uid: UID };
  const from = (data: unknown, origin = CHIPIN, source: unknown = frame) => ({ origin, source, data });

  it('parses exactly its shapes', () => {
    expect(parsePledgMessage(ready)).toEqual(ready);
    expect(parsePledgMessage({ ...ready, type: 'chipin:form-status', ready: true, extra: 1 })).toEqual({ ...ready, type: 'chipin:form-status', ready: true });
    expect(parsePledgMessage({ chipin: 1, type: 'chipin:invalid-request', message: 'amountCents is missing' })).toEqual({
      chipin: 1,
      type: 'chipin:invalid-request',
      message: 'amountCents is missing',
    });
    expect(parsePledgMessage({ chipin: 1, type: 'chipin:cancel', purchase_uid: UID })).toEqual({ chipin: 1, type: 'chipin:cancel', purchase_uid: UID });
    const error = { code: 'card_declined', message: 'The card was declined.', purchase_uid: UID, retryable: false };
    const posted = { chipin: 1, type: 'chipin:error', purchase_uid: UID, jwt: null };
    expect(parsePledgMessage({ ...posted, error: { ...error, type: 'not_eligible' } })).toEqual({ ...posted, error: { ...error, type: 'not_eligible' } });
    expect(parsePledgMessage({ ...posted, error: { ...error, type: 'made_up' } })).toEqual({ ...posted, error });
    for (const bad of [
      { ...ready, chipin: 2 },
      { ...ready, purchase_uid: 'pur_nope' },
      { ...ready, type: 'chipin:form-status', ready: 'yes' },
      { chipin: 1, type: 'chipin:invalid-request', message: 42 },
      { chipin: 1, type: 'chipin:invalid-request', message: 'x'.repeat(1_001) },
      { ...ready, type: 'chipin:validate-checkout' },
    ])
      expect(parsePledgMessage(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it("only from Chipin's origin and its own frame; before a purchase is bound any uid, after it only that one; a settings refusal only before", () => {
    const unbound = { chipinOrigin: CHIPIN, frame, purchaseUid: undefined };
    const bound = { ...unbound, purchaseUid: UID };
    const refusal = { chipin: 1, type: 'chipin:invalid-request', message: 'bad' };
    expect(acceptPledgMessage(from(ready), unbound)).toEqual(ready);
    expect(acceptPledgMessage(from(ready, SHOP), unbound)).toBeUndefined();
    expect(acceptPledgMessage(from(ready, CHIPIN, {}), unbound)).toBeUndefined();
    expect(acceptPledgMessage(from(ready, CHIPIN, null), { ...unbound, frame: null })).toBeUndefined();
    expect(acceptPledgMessage(from({ ...ready, purchase_uid: OTHER }), bound)).toBeUndefined();
    expect(acceptPledgMessage(from(ready), bound)).toEqual(ready);
    expect(acceptPledgMessage(from(refusal), unbound)).toEqual(refusal);
    expect(acceptPledgMessage(from(refusal), bound)).toBeUndefined();
  });
});

describe('messages the page hears from the script', () => {
  const parent = {};
  const expected = { merchantOrigin: SHOP, parent, purchaseUid: UID };
  const validate = { chipin: 1, type: 'chipin:validate-checkout', purchase_uid: UID };

  it('only from its parent window, from the merchant origin, exactly the shape, its own purchase', () => {
    expect(acceptHostMessage({ origin: SHOP, source: parent, data: validate }, expected)).toEqual(validate);
    expect(acceptHostMessage({ origin: SHOP, source: parent, data: { ...validate, type: 'chipin:external-validation' } }, expected)).toEqual({
      ...validate,
      type: 'chipin:external-validation',
    });
    expect(acceptHostMessage({ origin: 'https://evil.example', source: parent, data: validate }, expected)).toBeUndefined();
    expect(acceptHostMessage({ origin: SHOP, source: {}, data: validate }, expected)).toBeUndefined();
    expect(acceptHostMessage({ origin: SHOP, source: parent, data: { ...validate, purchase_uid: OTHER } }, expected)).toBeUndefined();
    expect(acceptHostMessage({ origin: SHOP, source: parent, data: { ...validate, card_number: '4242' } }, expected)).toBeUndefined();
    expect(acceptHostMessage({ origin: SHOP, source: parent, data: { ...validate, type: 'chipin:result' } }, expected)).toBeUndefined();
  });
});

describe("the script's words", () => {
  it('are in the language the settings pass, in every spelling, each of the six its own; English for any other, and in the bundle', () => {
    const spellings: [string | undefined, string][] = [
      ['de_DE', 'de'],
      ['en_GB', 'en'],
      ['es-ES', 'es'],
      ['fr_FR', 'fr'],
      ['it-IT', 'it'],
      ['nl_NL_formal', 'nl'],
    ];
    const seen = new Map<string, string>();
    for (const [lang, code] of spellings) {
      const words = scriptWords(lang);
      for (const [key, text] of Object.entries(words)) {
        expect(text.trim(), `${code} ${key}`).not.toBe('');
        // Each language has its own words: no two languages share a label.
        expect(seen.get(`${key}:${text}`), `${code} ${key}: ${text}`).toBeUndefined();
        seen.set(`${key}:${text}`, code);
      }
    }
    expect(scriptWords('de_DE')).toEqual({ frameTitle: 'Sichere Zahlung mit Chipin', closePayment: 'Zahlung schließen', dialog: 'Zahlung' });
    for (const other of ['pt_BR', '', undefined]) expect(scriptWords(other)).toEqual(scriptWords('en'));
    const bundle = pledgBundle().code;
    for (const [lang] of spellings) for (const text of Object.values(scriptWords(lang))) expect(bundle, `${lang}: ${text}`).toContain(text);
  });
});
