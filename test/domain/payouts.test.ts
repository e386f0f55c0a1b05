/**
 * The pure rules of payouts (docs/money-operations.md#payouts): the statuses' moves, amounts as a
 * SEPA file writes them, the IBAN as the back office shows it, names in the SEPA character set,
 * and the bank details' checks (ibantools) with messages naming the field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalOfCents, maskIban, payoutTransition, PAYOUT_STATUSES, sepaText, type PayoutStatus } from '../../src/domain/payouts.ts';
import { checkBankDetails } from '../../src/payouts/bank-details.ts';

describe('payout statuses', () => {
  const allowed = (from: PayoutStatus, to: PayoutStatus, currency: string) => payoutTransition(from, to, currency).ok;

  it('go created → exported → sent → returned in euros, created → sent in another currency, and returned is final', () => {
    expect(allowed('created', 'exported', 'EUR')).toBe(true);
    expect(allowed('exported', 'sent', 'EUR')).toBe(true);
    expect(allowed('sent', 'returned', 'EUR')).toBe(true);
    expect(allowed('exported', 'returned', 'EUR')).toBe(true);
    expect(allowed('created', 'sent', 'GBP')).toBe(true);
    expect(allowed('sent', 'returned', 'GBP')).toBe(true);
    const legal = new Set([
      'created>exported>EUR',
      'exported>sent>EUR',
      'sent>returned>EUR',
      'exported>returned>EUR',
      'created>sent>GBP',
      'sent>returned>GBP',
      'exported>sent>GBP',
      'exported>returned>GBP',
    ]);
    for (const currency of ['EUR', 'GBP'])
      for (const from of PAYOUT_STATUSES)
        for (const to of PAYOUT_STATUSES) {
          const move = payoutTransition(from, to, currency);
          expect(move.ok, `${from} → ${to} in ${currency}`).toBe(legal.has(`${from}>${to}>${currency}`));
          if (!move.ok) expect(move.message.length, 'a refusal says why').toBeGreaterThan(10);
        }
  });

  it('refuse with a message that says what to do', () => {
    expect(payoutTransition('created', 'sent', 'EUR')).toEqual({ ok: false, message: expect.stringContaining('export it first') });
    expect(payoutTransition('returned', 'sent', 'EUR')).toEqual({ ok: false, message: expect.stringContaining('final') });
    expect(payoutTransition('sent', 'sent', 'EUR')).toEqual({ ok: false, message: 'the payout is already sent' });
    expect(payoutTransition('created', 'exported', 'GBP')).toEqual({ ok: false, message: expect.stringContaining('not a SEPA credit transfer') });
  });
});

describe('amounts in a SEPA file', () => {
  it('are the integer cents written with two decimals, exactly, for any amount', () => {
    expect(decimalOfCents(0)).toBe('0.00');
    expect(decimalOfCents(5)).toBe('0.05');
    expect(decimalOfCents(12345)).toBe('123.45');
    expect(decimalOfCents(-250)).toBe('-2.50');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (cents) => {
        const [units, fraction] = decimalOfCents(cents).split('.');
        expect(BigInt(units!) * 100n + BigInt(fraction!)).toBe(BigInt(cents));
        expect(fraction).toHaveLength(2);
      }),
    );
  });

  it('refuse anything but an integer', () => {
    expect(() => decimalOfCents(1.5)).toThrow(/integer/);
  });
});

describe('the IBAN shown', () => {
  it('is its country, check digits and last four characters only', () => {
    expect(maskIban('FR7630006000011234567890189')).toBe('FR76 •••• •••• 0189');
    expect(maskIban('de89 3704 0044 0532 0130 00')).toBe('DE89 •••• •••• 3000');
  });
});

describe('names in a SEPA file', () => {
  it('keep to the basic Latin set: accents dropped, & as +, others a space, at most the length asked', () => {
    expect(sepaText('Société Générale & Fils', 70)).toBe('Societe Generale + Fils');
    expect(sepaText('Straße_Ü  «x»', 70)).toBe('Strasse U x');
    expect(sepaText('a'.repeat(80), 70)).toHaveLength(70);
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (text) => {
        const out = sepaText(text, 70);
        expect(out).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]*$/);
        expect(out.length).toBeLessThanOrEqual(70);
      }),
    );
  });
});

describe('bank details', () => {
  const good = { holder_name: ' Boutique  Exemple ', iban: 'fr76 3000 6000 0112 3456 7890 189', bic: 'agrifrpp' };

  it('are kept normalised: the IBAN without spaces, upper case; the BIC upper case; the name trimmed', () => {
    expect(checkBankDetails(good)).toEqual({ ok: true, details: { holderName: 'Boutique Exemple', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' } });
    expect(checkBankDetails({ ...good, iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }).ok).toBe(true);
    // A French overseas territory's bank with a French IBAN.
    expect(checkBankDetails({ ...good, bic: 'BNPARERXXXX' }).ok).toBe(true);
  });

  it('are refused with the field named and why', () => {
    const refused = (input: Record<string, unknown>) => {
      const r = checkBankDetails(input);
      return r.ok ? undefined : [r.field, r.message];
    };
    expect(refused({ ...good, holder_name: '' })).toEqual(['holder_name', expect.stringMatching(/^field holder_name is required/)]);
    expect(refused({ ...good, holder_name: 'x'.repeat(71) })).toEqual(['holder_name', 'field holder_name must be at most 70 characters']);
    expect(refused({ ...good, holder_name: '北京商店' })).toEqual(['holder_name', expect.stringContaining('Latin letters')]);
    expect(refused({ ...good, holder_name: 'a\u0000b' })).toEqual(['holder_name', expect.stringContaining('control characters')]);
    expect(refused({ ...good, iban: undefined })).toEqual(['iban', 'field iban is required']);
    expect(refused({ ...good, iban: 'FR7630006000011234567890188' })).toEqual(['iban', expect.stringContaining('check digits')]);
    expect(refused({ ...good, iban: 'FR76300060000112345678901' })).toEqual(['iban', expect.stringContaining('wrong length')]);
    expect(refused({ ...good, iban: 'XX7630006000011234567890189' })).toEqual(['iban', expect.stringContaining('country code')]);
    expect(refused({ ...good, iban: 'BR1800360305000010009795493C1', bic: 'BOFABR2X' })).toEqual(['iban', expect.stringContaining('SEPA country')]);
    expect(refused({ ...good, bic: '' })).toEqual(['bic', 'field bic is required']);
    expect(refused({ ...good, bic: 'AGRI' })).toEqual(['bic', expect.stringMatching(/^field bic is not a valid BIC/)]);
    expect(refused({ ...good, bic: 'COBADEFFXXX' })).toEqual(['bic', 'field bic is of another country (DE) than the IBAN (FR)']);
    expect(refused({ holder_name: 42, iban: [], bic: {} })).toEqual(['holder_name', expect.any(String)]);
  });
});
