import { describe, expect, it } from 'vitest';
import { noticeEmail } from '../../src/messaging/notice-templates.ts';
import { pledgeEmail, purchaseLinkEmail } from '../../src/messaging/templates.ts';
import { payForms } from '../../src/pages/shopper-space/pay-forms.ts';
import { SPACE_TEXT } from '../../src/pages/shopper-space/texts.ts';
import { TEXT } from '../../src/pages/texts.ts';
import { DEMO_SHOP_TEXT } from '../../src/sandbox/demo-shop-texts.ts';
import { signInMail } from '../../src/shopper-space/sign-in-messages.ts';
import { DEFERRED_30, DOWN_PAYMENT_FEES, INSTALLMENTS_3X, link, notices } from './shopper-fixtures.ts';

/**
 * French texts a shopper reads use the typographic apostrophe (’), never the typewriter one (')
 * between two letters (issue 78): the e-mails, the hosted pages' and the shopper space's words.
 * SMS keep the straight one, on purpose: GSM-7 has no ’ (templates.ts's smsSafe).
 */
const STRAIGHT = /\p{L}(?:'|&#39;|&#x27;)\p{L}/u;

/** Every string of a table of texts, its functions called with sample values. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (typeof value === 'function') return strings((value as (...a: unknown[]) => unknown)('A', 'B', 'C', 'D', 'E', 'F'), path);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

const straight = (texts: [string, string][]) => texts.filter(([, s]) => STRAIGHT.test(s)).map(([where, s]) => `${where}: ${s}`);

describe('French shopper texts: typographic apostrophes', () => {
  it('every French e-mail (payment links, pledge invitation and reminder, receipts and notices, the space sign-in): subject, text and HTML', () => {
    const pledge = { ...link('fr_FR'), kind: 'invitation' as const, inviterName: 'Léa', shareCents: 2_500, deadline: new Date('2026-08-03T12:00:00Z'), pledgerName: 'Bob' };
    const mails = [
      ['link (pot)', purchaseLinkEmail(link('fr_FR', { type: 'SHARED' }))],
      ['link (3x)', purchaseLinkEmail(link('fr_FR', INSTALLMENTS_3X))],
      ['link (deferred)', purchaseLinkEmail(link('fr_FR', DEFERRED_30))],
      ['link (down payment)', purchaseLinkEmail(link('fr_FR', DOWN_PAYMENT_FEES))],
      ['pledge invitation', pledgeEmail(pledge)],
      ['pledge reminder', pledgeEmail({ ...pledge, kind: 'reminder' })],
      ...notices('fr_FR').map((n, i) => [`${n.kind} #${i}`, noticeEmail(n)] as const),
      ['space sign-in', { ...signInMail('fr', 'ann@example.com', 'https://chipin.example/space/x', 15), html: '' }],
    ] as const;
    const found = mails.flatMap(([name, m]) =>
      straight([
        [`${name} subject`, m.subject],
        [`${name} text`, m.text],
        [`${name} html`, m.html],
      ]),
    );
    expect(found).toEqual([]);
  });

  it("the hosted pages', the shopper space's (its payment forms as rendered too) and the sandbox demo shop's French words", () => {
    expect(straight(strings(TEXT.fr, 'pages'))).toEqual([]);
    expect(straight(strings(SPACE_TEXT.fr, 'space'))).toEqual([]);
    expect(straight(strings(DEMO_SHOP_TEXT.fr, 'demo-shop'))).toEqual([]);
    // The shopper space's payment forms, as rendered: a refused installment, the rest to repay, each outcome.
    const forms = ['repaid', 'declined', 'nothing_to_pay'].map((outcome) => {
      const v = {
        uid: 'pur_x',
        csrf: 'c',
        currency: 'EUR',
        refused: [{ id: 'i', number: 2, amountCents: 10_000, dueDate: '2026-09-01', total: 3, retryOn: '2026-09-05' }],
        repayCents: 20_000,
        cardChange: true,
      };
      const { top, section } = payForms('fr', outcome === 'repaid' ? { ...v, done: outcome } : { ...v, problem: outcome });
      return [`pay-forms ${outcome}`, `${top}${section}`] as [string, string];
    });
    expect(straight(forms)).toEqual([]);
    expect(forms[0]![1]).toContain('Payer l’échéance 2 maintenant');
  });
});
