import { describe, expect, it } from 'vitest';
import { currencyExponent, isKnownCurrency } from '../../src/domain/money.ts';
import { formatDate, formatDateTime, formatMoney } from '../../src/i18n/format.ts';
import type { PledgeMessage, PurchaseLinkMessage } from '../../src/messaging/messenger.ts';
import { pledgeEmail, pledgeSms, purchaseLinkEmail, purchaseLinkSms, SMS_TARGET_LENGTH } from '../../src/messaging/templates.ts';

const URL = 'https://pay.chipin.example/pay/pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70';
const msg = (over: Partial<PurchaseLinkMessage> = {}): PurchaseLinkMessage => ({
  accountId: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70',
  purchaseId: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f71',
  language: 'en_GB',
  merchantName: 'Shoe Shop',
  timeZone: 'Europe/Paris',
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
    expect(plain(mail.text)).toContain('Shoe Shop a préparé votre achat « Red sneakers » d’un montant de 123,45 €.');
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

  it('speaks the six languages, and English for any other locale', () => {
    const greeting = { de_DE: /^Guten Tag Alice,/, es_ES: /^Hola, Alice:/, it_IT: /^Ciao Alice,/, nl_NL: /^Hallo Alice,/ };
    for (const [language, hello] of Object.entries(greeting)) {
      const mail = purchaseLinkEmail(msg({ language }));
      expect(mail.lang).toBe(language.slice(0, 2));
      expect(mail.text).toMatch(hello);
    }
    for (const language of ['pt_BR', 'xx', '']) {
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
  });
});

describe('purchase link SMS', () => {
  it('is short, in the purchase language, and carries the URL', () => {
    const fr = purchaseLinkSms(msg({ language: 'fr_FR' }));
    const en = purchaseLinkSms(msg({ language: 'en_GB' }));
    const pt = purchaseLinkSms(msg({ language: 'pt_BR' }));
    const es = purchaseLinkSms(msg({ language: 'es_ES' }));
    expect(fr).toBe(`Chipin, pour Shoe Shop : votre achat "Red sneakers" (123,45 €) vous attend. Payez ici : ${URL}`);
    expect(en).toBe(`Chipin, for Shoe Shop: your purchase "Red sneakers" (€123.45) is ready. Pay here: ${URL}`);
    expect(pt).toBe(en);
    expect(es).toBe(`Chipin, para Shoe Shop: su compra "Red sneakers" (123,45 €) esta lista. Pague aqui: ${URL}`); // á is not in GSM-7
    for (const s of [fr, en, es]) expect(s.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
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

// ------------------------------------------------------------------------------------------
// Pledges: a pledger's invitation and reminder.

const PLEDGE_URL = 'https://pay.chipin.example/pledge/plg_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f72';
const SHORT_URL = 'https://c.ex/p/1';
/** A concatenated SMS carries 153 GSM-7 characters a segment. */
const TWO_SEGMENTS = 2 * 153;
/** 14:00 in Paris (CET, UTC+1, in November). */
const DEADLINE = new Date('2026-11-23T13:00:00Z');
const pledge = (over: Partial<PledgeMessage> = {}): PledgeMessage => ({
  ...msg({ url: PLEDGE_URL, firstName: 'Leader' }),
  kind: 'invitation',
  inviterName: 'Alice',
  shareCents: 4_115,
  deadline: DEADLINE,
  pledgerName: 'Bob',
  ...over,
});

/** GSM 03.38: the basic set and the extension table (each extension character costs 2 septets). */
const GSM7 = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà' + '^{}\\[~]|€');
const nonGsm7 = (s: string) => [...s].filter((c) => !GSM7.has(c));

describe('deadline formatting', () => {
  it('writes date and time in the language, in the given zone, with its offset from UTC', () => {
    expect(formatDateTime(DEADLINE, 'en', 'Europe/Paris')).toBe('23 November 2026, 14:00 (UTC+1)');
    expect(plain(formatDateTime(DEADLINE, 'fr', 'Europe/Paris'))).toBe('23 novembre 2026 à 14:00 (UTC+1)');
    // Summer time (UTC+2) moves the date across midnight.
    expect(formatDateTime(new Date('2026-06-30T22:30:00Z'), 'en', 'Europe/Paris')).toBe('1 July 2026, 00:30 (UTC+2)');
    expect(plain(formatDateTime(new Date('2026-06-30T22:30:00Z'), 'fr', 'Europe/Paris'))).toBe('1er juillet 2026 à 00:30 (UTC+2)');
    expect(plain(formatDateTime(new Date('2026-12-10T08:05:00Z'), 'fr', 'Europe/Paris'))).toBe('10 décembre 2026 à 09:05 (UTC+1)');
    expect(formatDateTime(DEADLINE, 'en', 'America/New_York')).toBe('23 November 2026, 08:00 (UTC-5)');
    expect(formatDateTime(DEADLINE, 'en', 'UTC')).toBe('23 November 2026, 13:00 (UTC)');
    expect(() => formatDateTime(new Date('nope'), 'en', 'Europe/Paris')).toThrow(RangeError);
    expect(() => formatDateTime(DEADLINE, 'en', 'Mars/Olympus_Mons')).toThrow(RangeError);
  });

  it('writes a calendar date (an installment) with the same day rendering, whatever the time zone', () => {
    expect(formatDate('2026-08-01', 'en')).toBe('1 August 2026');
    expect(plain(formatDate('2026-08-01', 'fr'))).toBe('1er août 2026');
    expect(plain(formatDate('2026-12-31', 'fr'))).toBe('31 décembre 2026');
  });
});

describe('pledge e-mail', () => {
  it('invites in English with the share, the inviter, the total and the deadline', () => {
    const mail = pledgeEmail(pledge());
    expect(mail.lang).toBe('en');
    expect(mail.subject).toBe('Alice invites you to chip in €41.15 for Red sneakers');
    expect(mail.text).toMatch(/^Hello Bob,\n/); // the pledger, not the leader's firstName
    expect(mail.text).toContain('\nAlice invites you to chip in €41.15 for "Red sneakers" at Shoe Shop (total €123.45).\n');
    expect(mail.text).toContain(`\nPay your share before 23 November 2026, 14:00 (UTC+1):\n${PLEDGE_URL}\n`);
    expect(mail.text).toContain('Chipin, on behalf of Shoe Shop');
    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain(`href="${PLEDGE_URL}"`);
    expect(mail.html).toContain('Pay my share');
  });

  it('invites in French', () => {
    const mail = pledgeEmail(pledge({ language: 'fr_FR' }));
    expect(mail.lang).toBe('fr');
    expect(plain(mail.subject)).toBe('Alice vous invite à verser 41,15 € pour Red sneakers');
    expect(mail.text).toMatch(/^Bonjour Bob,\n/);
    expect(plain(mail.text)).toContain('\nAlice vous invite à verser 41,15 € pour « Red sneakers » chez Shoe Shop (total 123,45 €).\n');
    expect(plain(mail.text)).toContain(`\nRéglez votre part avant le 23 novembre 2026 à 14:00 (UTC+1) :\n${PLEDGE_URL}\n`);
    expect(mail.html).toContain('<html lang="fr">');
    expect(mail.html).toContain('Payer ma part');
  });

  it('reminds in English and in French, with the closing date', () => {
    const en = pledgeEmail(pledge({ kind: 'reminder' }));
    expect(en.subject).toBe('Reminder: the pot for Red sneakers closes on 23 November 2026, 14:00 (UTC+1)');
    expect(en.text).toContain('\nReminder: Alice invites you to chip in €41.15 for "Red sneakers" at Shoe Shop (total €123.45).\n');
    expect(en.text).toContain(`\nThe pot closes on 23 November 2026, 14:00 (UTC+1). Pay your share here:\n${PLEDGE_URL}\n`);
    const fr = pledgeEmail(pledge({ kind: 'reminder', language: 'fr_BE' }));
    expect(plain(fr.subject)).toBe('Rappel : la cagnotte pour Red sneakers se termine le 23 novembre 2026 à 14:00 (UTC+1)');
    expect(plain(fr.text)).toContain('\nRappel : Alice vous invite à verser 41,15 € pour « Red sneakers » chez Shoe Shop (total 123,45 €).\n');
    expect(plain(fr.text)).toContain(`\nLa cagnotte se termine le 23 novembre 2026 à 14:00 (UTC+1). Réglez votre part ici :\n${PLEDGE_URL}\n`);
  });

  it('falls back to English, and copes with no pledger name, an e-mail as inviter and other currencies', () => {
    for (const language of ['pt_BR', 'xx', '']) expect(pledgeEmail(pledge({ language })).text).toMatch(/^Hello Bob,\n\nAlice invites you/);
    expect(plain(pledgeEmail(pledge({ language: 'de_DE' })).text)).toMatch(/^Guten Tag Bob,\n\nAlice lädt Sie ein, 41,15 € für „Red sneakers“ bei Shoe Shop beizusteuern/);
    const mail = pledgeEmail(pledge({ pledgerName: undefined, inviterName: 'alice@example.test', shareCents: 1, currency: 'JPY', amountCents: 3 }));
    expect(mail.text).toMatch(/^Hello,\n/);
    expect(mail.text).toContain('alice@example.test invites you to chip in JP¥1 for "Red sneakers" at Shoe Shop (total JP¥3).');
    expect(pledgeEmail(pledge({ inviterName: ' \r\n ' })).text).toContain('\nA friend invites you to chip in');
    expect(pledgeEmail(pledge({ inviterName: '', language: 'fr_FR' })).text).toContain('\nUn proche vous invite à verser');
    expect(() => pledgeEmail(pledge({ shareCents: 1.5 }))).toThrow(RangeError);
    expect(() => pledgeEmail(pledge({ deadline: new Date(Number.NaN) }))).toThrow(RangeError);
  });

  it('escapes and flattens hostile names, title and merchant', () => {
    const hostile = '<script>alert("x")</script>';
    const mail = pledgeEmail(
      pledge({
        inviterName: `${hostile}\r\nBcc: victim@example.test`,
        pledgerName: '<i>Bob</i>\nX-Evil: 1',
        title: `<img src=x onerror='y'>\r\nTo: a@b.test`,
        merchantName: '<b>Evil</b> & "Shop"',
      }),
    );
    expect(mail.html).not.toMatch(/<script|<img|<i>|<b>/);
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Bcc: victim@example.test invites you');
    expect(mail.html).toContain('&lt;i&gt;Bob&lt;/i&gt; X-Evil: 1');
    expect(mail.html).toContain('&lt;img src=x onerror=&#39;y&#39;&gt; To: a@b.test');
    expect(mail.html).toContain('&lt;b&gt;Evil&lt;/b&gt; &amp; &quot;Shop&quot;');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    for (const header of ['Bcc:', 'X-Evil:', 'To:']) expect(mail.text.split('\n').some((line) => line.startsWith(header))).toBe(false);
    expect(mail.text).toContain(`Hello <i>Bob</i> X-Evil: 1,`); // plain text: flattened, not escaped
  });
});

describe('pledge SMS', () => {
  it('says it all in one SMS when the URL is short', () => {
    const en = pledgeSms(pledge({ url: SHORT_URL }));
    expect(en).toBe(`Chipin, for Shoe Shop: Alice invites you to chip in €41.15 for "Red sneakers". Pay your share before 23 November 2026, 14:00 (UTC+1): ${SHORT_URL}`);
    const fr = pledgeSms(pledge({ url: SHORT_URL, language: 'fr_FR' }));
    expect(fr).toBe(`Chipin, pour Shoe Shop : Alice vous invite à verser 41,15 € pour "Red sneakers". Réglez votre part avant le 23 novembre 2026 à 14:00 (UTC+1) : ${SHORT_URL}`);
    expect(pledgeSms(pledge({ url: SHORT_URL, language: 'pt_BR' }))).toBe(en);
    // The reminder is longer: no room left for even 12 characters of title, nor (with the zone
    // stated) for the merchant and total: its compact form.
    const reminder = pledgeSms(pledge({ url: SHORT_URL, kind: 'reminder' }));
    expect(reminder).toBe(
      `Chipin, for Shoe Shop: Reminder: Alice invites you to chip in €41.15. The pot closes on 23 November 2026, 14:00 (UTC+1). Pay your share here: ${SHORT_URL}`,
    );
    for (const s of [en, fr, reminder]) expect(s.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
  });

  it('keeps shop, inviter, share, deadline and the whole URL with a real page URL: two segments at most, the shop and Chipin before brevity', () => {
    const cases = [
      [pledge(), `Chipin, for Shoe Shop: Alice invites you to chip in €41.15 before 23 November 2026, 14:00 (UTC+1): ${PLEDGE_URL}`],
      [pledge({ kind: 'reminder' }), `Chipin, for Shoe Shop: Reminder: Alice invites you to chip in €41.15 before 23 November 2026, 14:00 (UTC+1): ${PLEDGE_URL}`],
      [pledge({ language: 'fr_FR' }), `Chipin, pour Shoe Shop : Alice vous invite à verser 41,15 € avant le 23 novembre 2026 à 14:00 (UTC+1) : ${PLEDGE_URL}`],
      [
        pledge({ language: 'fr_FR', kind: 'reminder' }),
        `Chipin, pour Shoe Shop : Rappel : Alice vous invite à verser 41,15 € avant le 23 novembre 2026 à 14:00 (UTC+1) : ${PLEDGE_URL}`,
      ],
    ] as const;
    for (const [m, expected] of cases) {
      const s = pledgeSms(m);
      expect(s).toBe(expected);
      expect(s.length).toBeLessThanOrEqual(TWO_SEGMENTS);
    }
  });

  it('shortens the title first, then the inviter, never the URL', () => {
    const url = 'https://c.example/p/2';
    const s = pledgeSms(pledge({ url, merchantName: 'Shop', title: 'A very long purchase title '.repeat(10) }));
    expect(s.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
    expect(s).toMatch(/^Chipin, for Shop: Alice invites you to chip in €41\.15 for "A very long purchas.*\.\.\."\. Pay your share before 23 November 2026, 14:00 \(UTC\+1\): /);
    expect(s.endsWith(url)).toBe(true);

    const longInviter = pledgeSms(pledge({ inviterName: 'Alexandra-Maximiliana de la Montagne-Sainte-Geneviève' }));
    expect(longInviter).toBe(`Chipin, for Shoe Shop: Alexandra-Maximil... invites you to chip in €41.15 before 23 November 2026, 14:00 (UTC+1): ${PLEDGE_URL}`);
    expect(longInviter.length).toBeLessThanOrEqual(TWO_SEGMENTS);

    const longUrl = PLEDGE_URL + '?' + 'x'.repeat(150);
    const long = pledgeSms(pledge({ url: longUrl }));
    expect(long.endsWith(` ${longUrl}`)).toBe(true);
    expect(long).toContain('€41.15');
    expect(long).toContain('23 November 2026, 14:00 (UTC+1)');
  });

  it('is GSM-7 only in French too (no no-break spaces, guillemets, or û of août)', () => {
    for (const m of [
      pledge({ language: 'fr_FR', url: SHORT_URL, title: 'Sortie « vélo »', merchantName: 'Vélo’s' }),
      pledge({ language: 'fr_FR', kind: 'reminder', deadline: new Date('2026-08-01T08:00:00Z') }),
      pledge({ language: 'fr_FR', deadline: new Date('2026-08-14T08:00:00Z') }),
    ]) {
      expect(nonGsm7(pledgeSms(m))).toEqual([]);
    }
    expect(pledgeSms(pledge({ language: 'fr_FR', url: SHORT_URL, title: 'Sortie « vélo »' }))).toContain('pour "Sortie "vélo"". Réglez');
    expect(pledgeSms(pledge({ language: 'fr_FR', deadline: new Date('2026-08-01T08:00:00Z') }))).toContain('avant le 1er aout 2026 à 10:00 (UTC+2) : ');
    expect(nonGsm7(purchaseLinkSms(msg({ language: 'fr_FR' })))).toEqual([]);
  });

  it('flattens hostile names to one line', () => {
    const s = pledgeSms(pledge({ inviterName: 'Eve\r\n\u2028Evil', title: 'T\nitle' }));
    expect(s).not.toMatch(/[\r\n\u2028]/);
    expect(s.startsWith('Chipin, for Shoe Shop: Eve Evil invites you to chip in €41.15')).toBe(true);
  });
});
