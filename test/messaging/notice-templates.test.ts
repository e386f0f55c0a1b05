import { describe, expect, it } from 'vitest';
import { formatPercent } from '../../src/i18n/format.ts';
import { noticeSms } from '../../src/messaging/notice-sms.ts';
import { noticeEmail } from '../../src/messaging/notice-templates.ts';
import type { OfferSummary } from '../../src/messaging/messenger.ts';
import { offerSummary } from '../../src/messaging/offer-summary.ts';
import fc from 'fast-check';
import { LANGS, languageTag, type Lang } from '../../src/i18n/lang.ts';
import { isGsm7, pledgeEmail, pledgeSms, purchaseLinkEmail, purchaseLinkSms, smsSafe, SMS_TARGET_LENGTH } from '../../src/messaging/templates.ts';
import { CODE_MINUTES, LINK_MINUTES } from '../../src/shopper-space/sign-in.ts';
import { signInMail, signInSms } from '../../src/shopper-space/sign-in-messages.ts';
import { englishLeft } from '../helpers/words-left.ts';
import { DEFERRED_30, DOWN_PAYMENT_30, DOWN_PAYMENT_FEES, INSTALLMENTS_3X, link, notices } from './shopper-fixtures.ts';

const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('the link says what the offer is', () => {
  it('APR in the language: "20,00 %" in French, "20.00%" in English', () => {
    expect(plain(formatPercent(20, 'fr'))).toBe('20,00 %');
    expect(formatPercent(20, 'en')).toBe('20.00%');
    expect(formatPercent(4.53, 'en')).toBe('4.53%');
  });

  it('a 3x link e-mail: the schedule and the credit figures, never "on your own or with friends"', () => {
    const fr = purchaseLinkEmail(link('fr_FR', INSTALLMENTS_3X));
    const text = plain(fr.text);
    for (const s of [
      'payable en 3 fois',
      'Aujourd’hui : 104,50 €',
      '1er septembre 2026 : 100,00 €',
      'Montant du crédit : 200,00 €',
      'Frais (coût total du crédit) : 4,50 €',
      'Montant total dû : 304,50 €',
      'TAEG fixe : 20,00 %',
    ]) {
      expect(text).toContain(s);
    }
    expect(text).not.toContain('plusieurs en suivant');
    const en = purchaseLinkEmail(link('en_GB', INSTALLMENTS_3X));
    expect(en.text).toContain('Fixed APR (TAEG): 20.00%');
    expect(en.text).not.toMatch(/with friends/);
    expect(en.html).toContain('<th scope="row"');
    expect(en.html).toContain('Shoe &lt;Shop&gt;');
  });

  it('a 3x link e-mail carries the credit mentions: the lender, the right of withdrawal and the statutory warning, verbatim, in bold', () => {
    const fr = purchaseLinkEmail(link('fr_FR', INSTALLMENTS_3X));
    const text = plain(fr.text);
    expect(text).toContain('Prêteur : Crédit <Test> SA, 1 rue de la Paix, 75002 Paris');
    expect(text).toContain('Droit de rétractation : vous pouvez vous rétracter de ce crédit dans un délai de 14 jours calendaires révolus');
    expect(text).toContain('Un crédit vous engage et doit être remboursé. Vérifiez vos capacités de remboursement avant de vous engager.');
    expect(fr.html).toContain('Crédit &lt;Test&gt; SA');
    expect(plain(fr.html)).toContain('<p style="font-weight:bold;margin:0 0 16px 0">Un crédit vous engage et doit être remboursé.');
    const en = purchaseLinkEmail(link('en_GB', INSTALLMENTS_3X));
    expect(en.text).toContain('Taking out a credit is a commitment and it must be repaid. Check your ability to repay before committing.');
    expect(en.text).toContain('Lender: Crédit <Test> SA');
    expect(en.text).toContain('Right of withdrawal: you may withdraw from this credit within 14 calendar days');
    // No right of withdrawal where the offer has none; no mention at all on a free deferred payment or a pot.
    const plan = INSTALLMENTS_3X as Extract<OfferSummary, { type: 'INSTALLMENTS' }>;
    const none = purchaseLinkEmail(link('en_GB', { ...plan, credit: { ...plan.credit, mentions: { lender: 'L', withdrawalDays: 0 } } }));
    expect(none.text).toContain('Lender: L');
    expect(none.text).not.toContain('withdraw');
    for (const offer of [DEFERRED_30, undefined]) {
      const mail = purchaseLinkEmail(link('fr_FR', offer));
      expect(mail.text).not.toContain('Un crédit vous engage');
      expect(mail.text).not.toContain('Prêteur');
    }
  });

  it('a deferred link never says "Pay" when nothing is charged today', () => {
    const en = purchaseLinkEmail(link('en_GB', DEFERRED_30));
    expect(en.text).toContain('nothing is charged today');
    expect(en.text).toContain('Authorise €300.00 (charged on 31 August 2026) at this link:');
    expect(en.html).toContain('>Authorise €300.00</a>');
    expect(en.text).not.toMatch(/\bPay\b/);
    const fr = purchaseLinkEmail(link('fr_FR', DEFERRED_30));
    expect(plain(fr.text)).toContain('Autorisez 300,00 € (débités le 31 août 2026)');
    expect(fr.text).not.toMatch(/Payez|Payer/);
  });

  it('a down payment link: the deposit paid today, the balance and its date; the credit figures and mentions only when the balance costs something', () => {
    const en = purchaseLinkEmail(link('en_GB', DOWN_PAYMENT_30));
    expect(en.text).toContain('payable by card in two parts: a deposit of €90.00 today, then the balance of €210.00, charged on 30 September 2026.');
    expect(en.text).toContain('- Today: €90.00');
    expect(en.text).toContain('- 30 September 2026: €210.00');
    expect(en.text).toContain('Pay the deposit of €90.00 at this link:');
    expect(en.html).toContain('>Pay €90.00</a>');
    expect(en.text).not.toContain('credit');
    const fr = plain(purchaseLinkEmail(link('fr_FR', DOWN_PAYMENT_FEES)).text);
    for (const s of [
      'payable par carte en deux temps : un acompte de 94,50 € aujourd’hui (dont 4,50 € de frais), puis le solde de 210,00 €, débité le 30 septembre 2026. Payer le solde plus tard est un crédit.',
      'Montant du crédit : 210,00 €',
      'TAEG fixe : 14,09 %',
      'Un crédit vous engage et doit être remboursé.',
      'Prêteur : Crédit <Test> SA',
    ]) {
      expect(fr).toContain(s);
    }
  });

  it('a down payment link SMS: the deposit today and the balance on its date, with fees and APR when it costs something (then in two SMS if need be)', () => {
    const en = purchaseLinkSms(link('en_GB', DOWN_PAYMENT_30));
    expect(en).toBe(`Chipin, for Shoe <Shop>: deposit €90.00 today, balance €210.00 on 30 September 2026: ${link('en').url}`);
    expect(en.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
    const fr = purchaseLinkSms(link('fr_FR', DOWN_PAYMENT_FEES));
    expect(fr).toContain('acompte 94,50 € ce jour dont 4,50 € de frais, TAEG 14,09 %, solde 210,00 € le 30 septembre 2026');
    expect(purchaseLinkSms({ ...link('en_GB', DOWN_PAYMENT_30), url: 'https://c.example/p/1' })).toBe(
      'Chipin, for Shoe <Shop>: "Red sneakers" (€300.00), deposit €90.00 today, balance €210.00 on 30 September 2026. Pay here: https://c.example/p/1',
    );
    for (const sms of [en, fr]) {
      expect(sms.endsWith(link('en').url)).toBe(true);
      expect(sms).not.toMatch(/[\u00a0\u202f«»]/);
    }
  });

  it('a pot link keeps its wording', () => {
    expect(purchaseLinkEmail(link('en_GB', { type: 'SHARED' })).text).toContain('Pay for it on your own or with friends at this link:');
  });

  it('link SMS: 3x with what is charged today, fees and APR; deferred with its date; within one SMS with a typical URL', () => {
    const en3 = purchaseLinkSms(link('en_GB', INSTALLMENTS_3X));
    // With a typical page URL (75 characters) the SMS is the compact form.
    expect(en3).toBe(`Chipin, for Shoe <Shop>: 3x €300.00, €104.50 today incl. €4.50 fees, APR 20.00%: ${link('en').url}`);
    const fr3 = purchaseLinkSms(link('fr_FR', INSTALLMENTS_3X));
    expect(fr3).toBe(`Chipin, pour Shoe <Shop> : 3x 300,00 €, 104,50 € ce jour, frais 4,50 €, TAEG 20,00 % : ${link('en').url}`);
    const enD = purchaseLinkSms(link('en_GB', DEFERRED_30));
    expect(enD).toBe(`Chipin, for Shoe <Shop>: authorise €300.00, charged on 31 August 2026 (nothing today): ${link('en').url}`);
    const frD = purchaseLinkSms(link('fr_FR', { ...DEFERRED_30, dueDate: '2026-08-01' } as typeof DEFERRED_30));
    expect(frD).toContain('autorisez 300,00 €, débités le 1er aout 2026, rien ce jour'); // û is not in GSM-7
    // A short URL leaves room for the title and the full sentence.
    expect(purchaseLinkSms({ ...link('en_GB', INSTALLMENTS_3X), url: 'https://c.example/p/1' })).toBe(
      'Chipin, for Shoe <Shop>: "Red sneakers" (€300.00) in 3 installments, €104.50 today incl. €4.50 fees, APR 20.00%. Pay here: https://c.example/p/1',
    );
    for (const sms of [en3, fr3, enD, frD]) {
      expect(sms.length).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
      expect(sms.endsWith(link('en').url)).toBe(true);
      expect(sms).not.toMatch(/[\u00a0\u202f«»]/);
    }
  });

  it('the figures come from the schedule engine, as the checkout computes them', () => {
    const offer = {
      type: 'INSTALLMENTS' as const,
      installments: 3,
      deferredDays: 0,
      feeRateBps: 150,
      fixedFeeCents: 0,
      minAmountCents: 5_000,
      maxAmountCents: 300_000,
      fundingCapCents: null,
      debitRateBps: 0,
      usuryCeilingBps: null,
      lender: 'Test Shop',
      withdrawalDays: null,
    };
    const s = offerSummary(offer, 30_000, new Date('2026-08-01T10:00:00Z'));
    expect(s).toMatchObject({ type: 'INSTALLMENTS', count: 3, credit: { financedCents: 20_000, feesCents: 450, totalDueCents: 30_450 } });
    if (s.type !== 'INSTALLMENTS') throw new Error('unreachable');
    expect(s.lines.map((l) => l.amountCents)).toEqual([10_450, 10_000, 10_000]);
    expect(s.credit.taegPercent).toBeGreaterThan(0);
  });
});

describe('a down payment’s receipt and notices', () => {
  const all = (language: string) => notices(language).slice(-4);

  it('the receipt shows the deposit charged, the schedule and the balance’s date; the balance is named as such in its reminder, receipt and refusal', () => {
    const [receipt, precharge, paid, refused] = all('en_GB').map((n) => noticeEmail(n));
    expect(receipt!.text).toContain('- Charged: €94.50');
    expect(receipt!.text).toContain('- 30 September 2026: €210.00');
    expect(receipt!.text).toContain('The balance of €210.00 will be charged to your Visa card ending 4242 on 30 September 2026. We will e-mail you a few days before.');
    expect(receipt!.text).toContain('Taking out a credit is a commitment');
    expect(precharge!.text).toContain('On 30 September 2026, €210.00 will be charged to your Visa card ending 4242 for the balance of "Red sneakers" at Shoe <Shop>');
    expect(paid!.subject).toBe('Shoe <Shop>: balance paid for Red sneakers');
    expect(paid!.text).toContain('Your purchase is paid in full.');
    expect(refused!.text).toContain('We could not charge €210.00 to your Visa card ending 4242 for the balance of "Red sneakers"');
    const fr = all('fr_FR').map((n) => plain(noticeEmail(n).text));
    expect(fr[0]).toContain('Le solde de 210,00 € sera débité sur votre carte Visa se terminant par 4242 le 30 septembre 2026.');
    expect(fr[1]).toContain('pour le solde de « Red sneakers »');
  });

  it('its SMS say "the balance", never "installment 2/2"', () => {
    for (const language of ['en_GB', 'fr_FR']) {
      for (const n of all(language).slice(1)) {
        const sms = noticeSms(n as Parameters<typeof noticeSms>[0]);
        expect(sms).toMatch(language === 'en_GB' ? /the balance of "Red sneakers"/ : /le solde de "Red sneakers"/);
        expect(sms).not.toContain('2/2');
      }
    }
  });

  it('the summary comes from the schedule engine: the deposit with its fees, the balance, the balance as the credit', () => {
    const offer = {
      type: 'DOWN_PAYMENT' as const,
      installments: 2,
      deferredDays: 0,
      depositPercent: 30,
      maxBalanceDelayDays: 60,
      feeRateBps: 150,
      fixedFeeCents: 0,
      minAmountCents: 1_000,
      maxAmountCents: 300_000,
      fundingCapCents: null,
      debitRateBps: 0,
      usuryCeilingBps: null,
      lender: 'Test Shop',
      withdrawalDays: null,
    };
    expect(offerSummary(offer, 30_000, new Date('2026-08-01T10:00:00Z'))).toEqual({
      type: 'DOWN_PAYMENT',
      deposit: { dueDate: '2026-08-01', amountCents: 9_450 },
      balance: { dueDate: '2026-09-30', amountCents: 21_000 },
      credit: { financedCents: 21_000, feesCents: 450, totalDueCents: 30_450, taegPercent: 14.09, mentions: { lender: 'Test Shop', withdrawalDays: 14 } },
    });
    expect(offerSummary({ ...offer, feeRateBps: 0 }, 30_000, new Date('2026-08-01T10:00:00Z'))).toMatchObject({ credit: { feesCents: 0, mentions: undefined } });
  });
});

/** The French pledge receipt SMS. */
const smsFr = (all: ReturnType<typeof notices>) => noticeSms(all.find((x) => x.kind === 'pledge_receipt') as Parameters<typeof noticeSms>[0]);

describe('receipts and notices', () => {
  it('every notice has a subject, a text part and an escaped HTML part, in fr and en', () => {
    for (const language of ['fr_FR', 'en_GB']) {
      for (const n of notices(language)) {
        const mail = noticeEmail(n);
        expect(mail.lang).toBe(language.slice(0, 2));
        expect(mail.subject.length).toBeGreaterThan(10);
        expect(mail.text).toContain(n.url);
        expect(mail.html).toContain(`<html lang="${mail.lang}">`);
        expect(mail.html).not.toContain('<Shop>');
        expect(mail.html).not.toContain('<Martin>');
      }
    }
  });

  it('the pot receipt says what is charged and what is held, not charged', () => {
    const [pot] = notices('en_GB');
    const mail = noticeEmail(pot!);
    expect(mail.text).toContain('- Charged: €50.00');
    expect(mail.text).toContain('- Held, not charged: €50.00');
    expect(mail.text).toContain('- Card: Visa ending 4242');
    expect(mail.text).toContain('You invited 2 friends to chip in €50.00 in total before 3 August 2026, 14:00 (UTC+2).');
    const fr = noticeEmail(notices('fr_FR')[0]!);
    expect(plain(fr.text)).toContain('- Réservé, non débité : 50,00 €');
  });

  it('the failed-charge notice says what happens next', () => {
    const all = notices('en_GB');
    expect(noticeEmail(all[7]!).text).toContain('We will try again on 2 September 2026.');
    expect(noticeEmail(all[8]!).text).toContain('That was the last attempt');
    expect(noticeEmail(all[6]!).text).toContain('On 1 September 2026, €100.00 will be charged to your Visa card ending 4242 for installment 2 of 3');
  });

  it('the pot-complete notice says the guarantee is released and nothing more will be charged', () => {
    const n = notices('en_GB').find((x) => x.kind === 'pot_complete')!;
    expect(noticeEmail(n).subject).toBe('Shoe <Shop>: the pot for Red sneakers is complete');
    expect(noticeEmail(n).text).toContain('The €50.00 held as a guarantee on your Visa card ending 4242 is released: nothing more will be charged.');
    expect(plain(noticeEmail(notices('fr_FR').find((x) => x.kind === 'pot_complete')!).text)).toContain(
      'Les 50,00 € réservés en garantie sur votre carte Visa se terminant par 4242 sont libérés : rien',
    );
  });

  it('the rest-charged notice tells the leader what the deadline charged and what their card was charged in all', () => {
    const n = notices('en_GB').find((x) => x.kind === 'rest_charged')!;
    const mail = noticeEmail(n);
    expect(mail.subject).toBe('Shoe <Shop>: €25.00 charged for Red sneakers');
    expect(mail.text).toContain('closed with €25.00 not covered by your friends: €25.00 was charged to your Visa card ending 4242, from the amount held');
    expect(mail.text).toContain('- Charged now: €25.00');
    expect(mail.text).toContain('- Charged in all for this purchase: €75.00');
    expect(plain(noticeEmail(notices('fr_FR').find((x) => x.kind === 'rest_charged')!).text)).toContain('- Débité en tout pour cet achat : 75,00 €');
  });

  it('a refund notice gives what came back, and the charged, refunded and net of the cardholder', () => {
    const [merchant, givenBack] = notices('en_GB').filter((x) => x.kind === 'refund');
    const mail = noticeEmail(merchant!);
    expect(mail.subject).toBe('Shoe <Shop>: €30.00 refunded for Red sneakers');
    expect(mail.text).toContain('Shoe <Shop> refunded €30.00 of your payment for "Red sneakers": it is on its way back to your Visa card ending 4242.');
    for (const row of ['- Charged: €75.00', '- Refunded: €30.00', '- Net charged: €45.00']) expect(mail.text).toContain(row);
    expect(noticeEmail(givenBack!).text).toContain('came when it was no longer needed');
    const fr = plain(noticeEmail(notices('fr_FR').filter((x) => x.kind === 'refund')[0]!).text);
    for (const row of ['- Débité : 75,00 €', '- Remboursé : 30,00 €', '- Net débité : 45,00 €']) expect(fr).toContain(row);
  });

  it('a refund that lowers installments not collected yet says by how much and what is left to pay, even when nothing went back to the card', () => {
    const [, , onlyLowered, ended] = notices('en_GB').filter((x) => x.kind === 'refund');
    const lowered = noticeEmail(onlyLowered!);
    expect(lowered.subject).toBe('Shoe <Shop>: €120.00 less to pay for Red sneakers');
    expect(lowered.text).toContain(
      'Shoe <Shop> refunded €120.00 of your purchase "Red sneakers" by taking it off what you still have to pay: nothing goes back to your Visa card ending 4242',
    );
    expect(lowered.text).toContain('What you still have to pay');
    expect(lowered.text).toContain('- 1 September 2026: €80.00');
    expect(lowered.text).not.toContain('It may take a few days');
    const last = noticeEmail(ended!);
    expect(last.subject).toBe('Shoe <Shop>: €10.00 refunded for Red sneakers');
    expect(last.text).toContain('This refund also takes €80.00 off what you still have to pay.');
    expect(last.text).toContain('Nothing more will be charged for this purchase.');
    expect(noticeSms(onlyLowered as Extract<typeof onlyLowered, { kind: 'refund' }>)).toContain('€120.00 less to pay');
    expect(noticeSms(onlyLowered as Extract<typeof onlyLowered, { kind: 'refund' }>)).toContain('Next charge: €80.00 on 1 September 2026.');
    const fr = plain(noticeEmail(notices('fr_FR').filter((x) => x.kind === 'refund')[2]!).text);
    expect(fr).toContain('Ce qu’il vous reste à payer');
    expect(fr).toContain('- 1er septembre 2026 : 80,00 €');
  });

  it('every notice sent by SMS (receipts, pre-charge, refusals, pot complete, rest charged or refused, refunds): one GSM-7 segment, even with a long title, in each of the six languages', () => {
    for (const lang of LANGS) {
      for (const n of notices(languageTag(lang))) {
        if (n.kind === 'leader_receipt') continue;
        for (const title of ['Red sneakers', 'A very long product title that goes on and on about the sneakers and their laces']) {
          const text = noticeSms({ ...n, title });
          expect(text.length, `${lang} ${n.kind}: ${text}`).toBeLessThanOrEqual(SMS_TARGET_LENGTH);
          expect(isGsm7(text), `${lang} ${n.kind}: ${text}`).toBe(true);
        }
      }
    }
    const receipt = noticeSms(notices('en_GB').find((x) => x.kind === 'pledge_receipt')!);
    // With the shop named and the zone stated, the thanks no longer fit: the sentence starts at "Your share".
    for (const part of ['Your share of €25.00', 'is paid', '€25.00 still to collect before 3 August 2026, 14:00 (UTC+2)']) expect(receipt).toContain(part);
    expect(smsFr(notices('fr_FR'))).toContain('aout'); // û is not in GSM-7
  });
});

describe('a refused installment notice helps', () => {
  const [retrying, last] = notices('fr_FR').filter((n) => n.kind === 'charge_failed');
  it('announces the next try and links to the space to pay now or change the card, in fr and en', () => {
    const fr = noticeEmail(retrying!);
    expect(plain(fr.text)).toContain('Nous réessaierons le');
    expect(plain(fr.text)).toContain('Payer maintenant ou changer de carte :\nhttps://pay.example.com/space/purchases/pur_');
    expect(fr.html).toContain('<a href="https://pay.example.com/space/purchases/pur_');
    const en = noticeEmail({ ...retrying!, language: 'en_GB' });
    expect(en.text).toContain('Pay now or change your card:\nhttps://pay.example.com/space/purchases/pur_');
  });
  it('after the last try, no "pay now": the purchase failed', () => {
    expect(noticeEmail(last!).text).not.toContain('/space/');
  });
});

describe('every message to a shopper in the six languages', () => {
  // The same in every language: brand names, and the fixtures' shop, title and names.
  const ALLOWED = ['Shoe <Shop>', 'Red sneakers', 'Alice <Martin>'];
  const AREAS = ['messages', 'credit'];
  const deadline = new Date('2026-11-23T13:00:00Z');
  /** Every message a shopper can receive, by name: the links of each offer, a friend's invitation and reminder, every receipt and notice, the space's sign-in. */
  function everyMessage(lang: Lang): [string, { subject?: string; text: string; html?: string }][] {
    const language = languageTag(lang);
    const offers = { pot: undefined, '3x': INSTALLMENTS_3X, deferred: DEFERRED_30, 'down payment': DOWN_PAYMENT_30, 'down payment with fees': DOWN_PAYMENT_FEES };
    const pledge = (kind: 'invitation' | 'reminder') => ({ ...link(language), kind, inviterName: 'Alice <Martin>', shareCents: 4_115, deadline, pledgerName: 'Bob' });
    return [
      ...Object.entries(offers).flatMap(([name, offer]): [string, { subject?: string; text: string; html?: string }][] => [
        [`${name} link e-mail`, purchaseLinkEmail(link(language, offer))],
        [`${name} link SMS`, { text: purchaseLinkSms(link(language, offer)) }],
      ]),
      ...(['invitation', 'reminder'] as const).flatMap((kind): [string, { subject?: string; text: string; html?: string }][] => [
        [`pledge ${kind} e-mail`, pledgeEmail(pledge(kind))],
        [`pledge ${kind} SMS`, { text: pledgeSms(pledge(kind)) }],
      ]),
      ...notices(language).flatMap((n, i): [string, { subject?: string; text: string; html?: string }][] => [
        [`${n.kind} ${i} e-mail`, noticeEmail(n)],
        ...(n.kind === 'leader_receipt' ? [] : [[`${n.kind} ${i} SMS`, { text: noticeSms(n) }] as [string, { text: string }]]),
      ]),
      ['sign-in e-mail', signInMail(lang, 'bob@example.com', 'https://pay.example.com/space/sign-in/link/x', LINK_MINUTES)],
      ['sign-in SMS', { text: signInSms(lang, '123456', CODE_MINUTES) }],
    ];
  }

  it('renders each one in each language, every placeholder filled, with no English left in the five others, and each SMS in GSM-7', () => {
    // The check finds English where there is some: every English message read as German.
    for (const [name, message] of everyMessage('en')) expect(englishLeft(`${message.text}\n${message.html ?? ''}`, 'de', AREAS, ALLOWED), name).not.toEqual([]);
    for (const lang of LANGS) {
      for (const [name, message] of everyMessage(lang)) {
        const all = [message.subject ?? '', message.text, message.html ?? ''].join('\n');
        expect(all, `${lang} ${name}`).not.toMatch(/[{}]|undefined|NaN/);
        expect(englishLeft(all, lang, AREAS, ALLOWED), `${lang} ${name}`).toEqual([]);
        if (message.html) expect(message.html, `${lang} ${name}`).toContain(`<html lang="${lang}">`);
        if (name.endsWith('SMS')) expect(isGsm7(message.text), `${lang} ${name}: ${message.text}`).toBe(true);
      }
    }
  });

  it('writes amounts and dates as each language does, and the credit in its country’s legal words', () => {
    const mail = (lang: Lang) => plain(purchaseLinkEmail(link(languageTag(lang), INSTALLMENTS_3X)).text);
    expect(mail('de')).toContain('Effektiver Jahreszins (fest): 20,00 %');
    expect(mail('de')).toContain('1. September 2026: 100,00 €');
    expect(mail('es')).toContain('TAE fija');
    expect(mail('es')).toContain('1 de septiembre de 2026: 100,00 €');
    expect(mail('it')).toContain('TAEG fisso');
    expect(mail('nl')).toContain('JKP');
    expect(mail('nl')).toContain('1 september 2026: € 100,00');
  });
});

describe('SMS text is GSM-7', () => {
  it('smsSafe keeps the GSM 03.38 letters and writes every other one in them', () => {
    expect(smsSafe('Ärger über Straße, ¿qué tal?, à bientôt, ça, Œuvre, «\u00a0x\u00a0», l’été… – fin')).toBe(
      'Ärger über Straße, ¿qué tal?, à bientot, ca, OEuvre, "x", l\'été... - fin',
    );
    expect(smsSafe('canción, información, naïef, 😀')).toBe('cancion, informacion, naief, ?');
    // Any text: Latin letters with and without accents mostly, then any code point (emoji, other scripts, lone surrogates).
    const codePoint = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 0x024f }), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 0x10ffff }), weight: 1 });
    const text = fc.array(codePoint, { maxLength: 60 }).map((cps) => String.fromCodePoint(...cps));
    fc.assert(
      fc.property(text, (s) => isGsm7(smsSafe(s))),
      { numRuns: 2_000 },
    );
  });
});
