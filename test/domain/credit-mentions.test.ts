import { describe, expect, it } from 'vitest';
import { CONSUMER_CREDIT_WITHDRAWAL_DAYS, creditMentions, isCredit, withdrawalDays } from '../../src/domain/credit-mentions.ts';
import { CREDIT_WORDS } from '../../src/i18n/credit-words.ts';

/** The credit mentions' rules (docs/schedules.md#credit-mentions). */
describe('credit mentions', () => {
  const line = (payment_date: string, fees = 0) => ({ payment_date, fees });

  it('the statutory warning is verbatim in French (L312-5) and in Dutch (the AFM’s), with its counterparts in the other languages', () => {
    expect(CREDIT_WORDS.text('fr', 'warning')).toBe('Un crédit vous engage et doit être remboursé. Vérifiez vos capacités de remboursement avant de vous engager.');
    expect(CREDIT_WORDS.text('nl', 'warning')).toBe('Let op! Geld lenen kost geld');
    expect(CREDIT_WORDS.text('en', 'warning')).toBe('Taking out a credit is a commitment and it must be repaid. Check your ability to repay before committing.');
    expect(CREDIT_WORDS.langs).toEqual(['en', 'de', 'es', 'fr', 'it', 'nl']);
  });

  it('names the rate as each country’s law does: TAEG (fr, it), TAE (es), effektiver Jahreszins (de), JKP (nl)', () => {
    const apr = (lang: 'de' | 'es' | 'fr' | 'it' | 'nl') => CREDIT_WORDS.text(lang, 'apr', { rate: 'x' });
    expect([apr('fr'), apr('it'), apr('es'), apr('de'), apr('nl')].map((s) => s.replace(/\u00a0/g, ' '))).toEqual([
      'TAEG : x',
      'TAEG: x',
      'TAE: x',
      'Effektiver Jahreszins: x',
      'JKP: x',
    ]);
  });

  it('3x/4x is always a credit; a deferred payment or a down payment only when it costs something; a pot never', () => {
    expect(isCredit('INSTALLMENTS', 0)).toBe(true);
    expect(isCredit('DEFERRED', 0)).toBe(false);
    expect(isCredit('DEFERRED', 1)).toBe(true);
    // A down payment's balance is a delay the shop grants when free, a credit when it costs something (docs/schedules.md#credit-mentions).
    expect(isCredit('DOWN_PAYMENT', 0)).toBe(false);
    expect(isCredit('DOWN_PAYMENT', 1)).toBe(true);
    expect(isCredit('SHARED', 100)).toBe(false);
  });

  it("withdrawal: 14 days (L312-19) by default, none for a free credit repaid within 3 months (L312-4), the offer's own setting first", () => {
    expect(CONSUMER_CREDIT_WITHDRAWAL_DAYS).toBe(14);
    const rule = { withdrawalDays: null };
    expect(withdrawalDays(rule, '2026-01-31', '2026-03-31', 450)).toBe(14); // fees: the lender decides, by default the right is shown
    expect(withdrawalDays(rule, '2026-01-31', '2026-04-30', 0)).toBe(0); // free, within 3 months (31 Jan + 3 months = 30 Apr)
    expect(withdrawalDays(rule, '2026-01-31', '2026-05-01', 0)).toBe(14); // free but longer than 3 months
    expect(withdrawalDays({ withdrawalDays: 0 }, '2026-01-31', '2026-12-31', 900)).toBe(0);
    expect(withdrawalDays({ withdrawalDays: 21 }, '2026-01-31', '2026-02-28', 0)).toBe(21);
  });

  it('a schedule gets the lender and the period, or nothing when it is no credit', () => {
    const offer = { type: 'INSTALLMENTS' as const, lender: 'Prêteur SA', withdrawalDays: null };
    expect(creditMentions(offer, '2026-08-01', [line('2026-08-01', 450), line('2026-09-01'), line('2026-10-01')])).toEqual({ lender: 'Prêteur SA', withdrawalDays: 14 });
    expect(creditMentions({ ...offer, type: 'DEFERRED' }, '2026-08-01', [line('2026-08-31')])).toBeUndefined();
    expect(creditMentions({ ...offer, type: 'DEFERRED' }, '2026-08-01', [line('2026-08-31', 300)])).toEqual({ lender: 'Prêteur SA', withdrawalDays: 14 });
  });
});
