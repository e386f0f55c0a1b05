import { describe, expect, it } from 'vitest';
import { readPluginSettings, settingsFromQuery } from '../../src/domain/plugin-settings.ts';

const UID = 'mer_0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a';
const base = { merchantUid: UID, amountCents: '30550', email: 'ana@example.com', title: 'Trip' };

/** A query string read as fastify's parser does: repeated names become arrays. */
function parse(qs: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(qs)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
const read = (qs: string) => readPluginSettings(settingsFromQuery(parse(qs)));

describe('the direct call settings (docs/plugin-integration.md#the-settings)', () => {
  it('reads flat query settings, amounts as strings and PHP booleans', () => {
    const r = read(new URLSearchParams({ ...base, showCloseButton: '1', externalCheckoutValidation: '0', lang: 'de_DE', currency: 'eur' }).toString());
    expect(r).toEqual({
      ok: true,
      settings: {
        merchantUid: UID,
        amountCents: 30_550,
        email: 'ana@example.com',
        title: 'Trip',
        showCloseButton: true,
        externalCheckoutValidation: false,
        lang: 'de_DE',
        currency: 'EUR',
      },
    });
  });

  it('reads nested settings JSON-encoded (the WooCommerce unsigned call) and with PHP brackets alike', () => {
    const address = { street: '1 rue de la Paix', city: 'Paris', zipcode: '75002', stateProvince: '', country: 'FR' };
    const json = read(new URLSearchParams({ ...base, address: JSON.stringify(address), metadata: JSON.stringify({ plugin: 'woo', products: [{ name: 'Hat' }] }) }).toString());
    const brackets = read(
      `${new URLSearchParams(base)}&address%5Bstreet%5D=1+rue+de+la+Paix&address%5Bcity%5D=Paris&address%5Bzipcode%5D=75002&address%5BstateProvince%5D=&address%5Bcountry%5D=FR` +
        '&metadata%5Bplugin%5D=woo&metadata%5Bproducts%5D%5B0%5D%5Bname%5D=Hat',
    );
    const want = { street: '1 rue de la Paix', city: 'Paris', zipcode: '75002', country: 'FR' };
    expect(json.ok && json.settings.address).toEqual(want);
    expect(brackets.ok && brackets.settings.address).toEqual(want);
    expect(json.ok && json.settings.metadata).toEqual({ plugin: 'woo', products: [{ name: 'Hat' }] });
    // PHP brackets carry no types: a list is an object of indices.
    expect(brackets.ok && brackets.settings.metadata).toEqual({ plugin: 'woo', products: { 0: { name: 'Hat' } } });
  });

  it('accepts every setting of the integration tables, and ignores unknown ones', () => {
    const all = {
      ...base,
      firstName: 'Ana',
      lastName: 'Lima',
      reference: 'Pledg_42_1700000000',
      subtitle: 'My shop',
      currency: 'EUR',
      lang: 'nl_NL',
      phoneNumber: '0612345678',
      countryCode: 'FR',
      address: { street: 's', city: 'c', zipcode: 'z', stateProvince: 'p', country: 'FR' },
      shippingAddress: { street: 's2', city: 'c2', zipcode: 'z2', stateProvince: 'p2', country: 'BE' },
      civility: 'Ms',
      birthDate: '1960-02-29',
      birthCity: 'Lisboa',
      birthCountry: 'PT',
      birthZipcode: '1000',
      birthStateProvince: 'Lisboa',
      metadata: { a: 1 },
      redirectUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/ko',
      paymentNotificationUrl: 'mailto:ops@shop.example',
      errorNotificationUrl: 'https://shop.example/err',
      secondInstallmentPaymentDate: '2030-05-15',
      deferredPaymentDate: '2030-01-20',
      balancePaymentDate: '2030-02-01',
      showCloseButton: true,
      externalCheckoutValidation: true,
      containerElement: 'ignored',
      somethingNew: 'ignored',
    };
    const r = readPluginSettings(all);
    expect(r.ok).toBe(true);
    const { containerElement: _c, somethingNew: _s, ...known } = all;
    expect(r.ok && r.settings).toEqual({ ...known, amountCents: 30_550 });
  });

  it('reads a float amount within a thousandth of a cent as its whole number, and refuses a fraction of a cent naming amountCents', () => {
    expect(readPluginSettings({ ...base, amountCents: 1998.9999999999998 })).toMatchObject({ ok: true, settings: { amountCents: 1999 } });
    expect(readPluginSettings({ ...base, amountCents: '1998.5' })).toEqual({ ok: false, field: 'amountCents', message: expect.stringContaining('fraction of a cent') });
    expect(readPluginSettings({ ...base, amountCents: 0 })).toMatchObject({ ok: false, field: 'amountCents' });
  });

  it("reads the shop plugins' own spellings: PrestaShop's Mme and notificationUrl, Magento's shipping_address", () => {
    const base = { merchantUid: 'mer_1', amountCents: 100, email: 'a@b.example', title: 'T' };
    const civility = (c: string) => {
      const r = readPluginSettings({ ...base, civility: c });
      return r.ok ? r.settings.civility : r.field;
    };
    expect(['Mr', 'M.', 'monsieur', 'Ms', 'Mme', 'Mlle', 'Mrs', 'Miss', 'Madame'].map(civility)).toEqual(['Mr', 'Mr', 'Mr', 'Ms', 'Ms', 'Ms', 'Ms', 'Ms', 'Ms']);
    const r = readPluginSettings({
      ...base,
      notificationUrl: 'https://shop.example/n?amount=100',
      shipping_address: { street: '1 rue A', city: 'Lyon', zipcode: '69003', country: 'FR' },
    });
    expect(r.ok && [r.settings.paymentNotificationUrl, r.settings.shippingAddress?.city]).toEqual(['https://shop.example/n?amount=100', 'Lyon']);
    // The interface's own name wins when both are given.
    const both = readPluginSettings({ ...base, notificationUrl: 'https://a.example/', paymentNotificationUrl: 'https://b.example/' });
    expect(both.ok && both.settings.paymentNotificationUrl).toBe('https://b.example/');
  });

  it.each([
    [{ merchantUid: undefined }, 'merchantUid'],
    [{ amountCents: '' }, 'amountCents'],
    [{ email: 'not an address' }, 'email'],
    [{ title: '  ' }, 'title'],
    [{ currency: 'EURO' }, 'currency'],
    [{ lang: 'fr FR' }, 'lang'],
    [{ civility: 'Dr' }, 'civility'],
    [{ birthDate: '1990-02-30' }, 'birthDate'],
    [{ deferredPaymentDate: '20300120' }, 'deferredPaymentDate'],
    [{ countryCode: 'FRA' }, 'countryCode'],
    [{ address: '{"city":' }, 'address'],
    [{ address: { country: 'France' } }, 'address.country'],
    [{ redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
    [{ paymentNotificationUrl: 'ftp://x.example' }, 'paymentNotificationUrl'],
    [{ showCloseButton: 'yes' }, 'showCloseButton'],
    [{ metadata: [1, 2] }, 'metadata'],
    [{ metadata: { big: 'x'.repeat(9000) } }, 'metadata'],
    [{ title: 'x'.repeat(256) }, 'title'],
  ])('refuses %j naming %s', (over, field) => {
    expect(readPluginSettings({ ...base, ...over })).toMatchObject({ ok: false, field, message: expect.stringContaining(field) });
  });

  it('takes an empty value as left out, the last of a repeated parameter, and never the signature or Chipin own parameters', () => {
    const r = read(`${new URLSearchParams(base)}&firstName=&title=First&title=Second&embed=1&parent_origin=https%3A%2F%2Fx.example&signature=abc`);
    expect(r).toEqual({ ok: true, settings: { merchantUid: UID, amountCents: 30_550, email: 'ana@example.com', title: 'Second' } });
  });

  it('builds nothing from names PHP would not write, nor onto prototypes', () => {
    const q = settingsFromQuery({ '__proto__[polluted]': '1', 'a[]': 'x', 'address[__proto__][x]': '1', ...base });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(q).sort()).toEqual(Object.keys(base).sort());
  });
});
