import { describe, expect, it } from 'vitest';
import { currencyExponent, formatMoney, isKnownCurrency } from '../../src/domain/money.ts';
import type { PurchaseLinkMessage } from '../../src/messaging/messenger.ts';
import { escapeHtml, purchaseLinkEmail, purchaseLinkSms, SMS_TARGET_LENGTH } from '../../src/messaging/templates.ts';

const URL = 'https://pay.chipin.example/pay/pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70';
const msg = (over: Partial<PurchaseLinkMessage> = {}): PurchaseLinkMessage => ({
  accountId: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70',
  purchaseId: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f71',
  language: 'en_GB',
  merchantName: 'Shoe Shop',
  title: 'Red sneakers',
  amountCents: 12_345,
  currency: 'EUR',
  url: URL,
  firstName: 'Alice',
  ...over,
});
// Intl puts (narrow) no-break spaces in French amounts; compare with plain spaces.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('money', () => {
  it('knows ISO 4217 codes and their exponents', () => {
    expect(isKnownCurrency('EUR')).toBe(true);
    expect(isKnownCurrency('eur')).toBe(false);
    expect(isKnownCurrency('ZZZ')).toBe(false);
    expect(isKnownCurrency('EURO')).toBe(false);
    expect([currencyExponent('EUR'), currencyExponent('JPY'), currencyExponent('KWD'), currencyExponent('GBP')]).toEqual([2, 0, 3, 2]);
    // ISO minor units where the platform's display data rounds them away.
    expect([currencyExponent('HUF'), currencyExponent('IQD')]).toEqual([2, 3]);
    expect(() => currencyExponent('ZZZ')).toThrow(RangeError);
  });

  it('formats minor units exactly, per language', () => {
    expect(plain(formatMoney(1, 'EUR', 'fr'))).toBe('0,01 €');
    expect(formatMoney(1, 'EUR', 'en')).toBe('€0.01');
    expect(formatMoney(0, 'EUR', 'en')).toBe('€0.00');
    expect(plain(formatMoney(12_345, 'EUR', 'fr'))).toBe('123,45 €');
    expect(formatMoney(1234, 'JPY', 'en')).toBe('JP¥1,234');
    expect(plain(formatMoney(1234, 'JPY', 'fr'))).toBe('1 234 JPY');
    expect(plain(formatMoney(1234, 'KWD', 'en'))).toBe('KWD 1.234');
    // Beyond what a float division keeps exact: 2^53 - 1 minor units.
    expect(formatMoney(9_007_199_254_740_991, 'EUR', 'en')).toBe('€90,071,992,547,409.91');
    expect(plain(formatMoney(123_456_789_00, 'EUR', 'fr'))).toBe('123 456 789,00 €');
    expect(() => formatMoney(1.5, 'EUR', 'en')).toThrow(RangeError);
  });
});

describe('purchase link e-mail', () => {
  it('is in French for fr_FR', () => {
    const mail = purchaseLinkEmail(msg({ language: 'fr_FR' }));
    expect(mail.lang).toBe('fr');
    expect(plain(mail.subject)).toBe('Shoe Shop : votre lien de paiement pour Red sneakers');
    expect(mail.text).toMatch(/^Bonjour Alice,/);
    expect(plain(mail.text)).toContain('Shoe Shop a préparé votre achat « Red sneakers » d\'un montant de 123,45 €.');
    expect(mail.text).toContain(`\n${URL}\n`);
    expect(mail.html).toContain('<html lang="fr">');
    expect(mail.html).toContain(`href="${URL}"`);
  });

  it('is in English for en_GB', () => {
    const mail = purchaseLinkEmail(msg({ language: 'en_GB', firstName: undefined }));
    expect(mail.lang).toBe('en');
    expect(mail.subject).toBe('Shoe Shop: your payment link for Red sneakers');
    expect(mail.text).toMatch(/^Hello,\n/);
    expect(mail.text).toContain('Shoe Shop has prepared your purchase "Red sneakers" for €123.45.');
    expect(mail.text).toContain(URL);
    expect(mail.html).toContain('<html lang="en">');
  });

  it('falls back to English for other locales', () => {
    for (const language of ['de_DE', 'es_ES', 'xx', '']) {
      const mail = purchaseLinkEmail(msg({ language }));
      expect(mail.lang).toBe('en');
      expect(mail.text).toMatch(/^Hello Alice,/);
    }
  });

  it('formats 1 cent, zero-decimal and large amounts', () => {
    expect(purchaseLinkEmail(msg({ amountCents: 1 })).text).toContain('for €0.01.');
    expect(purchaseLinkEmail(msg({ amountCents: 5000, currency: 'JPY' })).text).toContain('for JP¥5,000.');
    expect(plain(purchaseLinkEmail(msg({ amountCents: 5000, currency: 'JPY', language: 'fr_FR' })).text)).toContain('de 5 000 JPY.');
    expect(purchaseLinkEmail(msg({ amountCents: 123_456_789_01 })).text).toContain('for €123,456,789.01.');
  });

  it('escapes every merchant-supplied value in HTML and keeps headers on one line', () => {
    const hostile = '<script>alert("x")</script> & <img src=x onerror=\'y\'>';
    const mail = purchaseLinkEmail(msg({ title: hostile + '\r\nBcc: victim@example.test', merchantName: '<b>Evil</b> "Shop"', firstName: '<i>Bob</i>' }));
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain('<b>Evil');
    expect(mail.html).not.toContain('<i>Bob');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=&#39;y&#39;&gt;');
    expect(mail.html).toContain('&lt;b&gt;Evil&lt;/b&gt; &quot;Shop&quot;');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text.split('\n').some((line) => line.startsWith('Bcc:'))).toBe(false);
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});

describe('purchase link SMS', () => {
  it('is short, in the purchase language, and carries the URL', () => {
    const fr = purchaseLinkSms(msg({ language: 'fr_FR' }));
    const en = purchaseLinkSms(msg({ language: 'en_GB' }));
    const de = purchaseLinkSms(msg({ language: 'de_DE' }));
    expect(fr).toBe(`Shoe Shop : votre achat "Red sneakers" (123,45 €) vous attend. Payez ici : ${URL}`);
    expect(en).toBe(`Shoe Shop: your purchase "Red sneakers" (€123.45) is ready. Pay here: ${URL}`);
    expect(de).toBe(en);
    for (const s of [fr, en]) expect(s.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
    expect(fr).not.toMatch(/[\u00a0\u202f«»]/); // GSM-7 friendly
  });

  it('shortens a long title but never the URL', () => {
    const s = purchaseLinkSms(msg({ title: 'A very long purchase title '.repeat(10) }));
    expect(s.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
    expect(s.endsWith(URL)).toBe(true);
    expect(s).toContain('...');
    const longUrl = URL + '?' + 'x'.repeat(150);
    const long = purchaseLinkSms(msg({ url: longUrl }));
    expect(long.endsWith(longUrl)).toBe(true);
  });
});
