/**
 * The operator's pain.001 file on its own (docs/money-operations.md#the-sepa-file): built by the
 * `sepa` library from random transfers, it validates against the ISO 20022 schema of its version,
 * its control sums and counts are the transfers' integer cents, and each transfer names its payout.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { decimalOfCents } from '../../src/domain/payouts.ts';
import { buildPain001, messageIdOf, PAIN_FORMATS, remittanceOf, type CreditTransfer, type PainFormat } from '../../src/payouts/pain001.ts';
import { fileTotals, OPERATOR, painSchemas, validateXml } from './helpers.ts';

let schemas: Record<PainFormat, string>;
beforeAll(() => {
  schemas = painSchemas();
});

const CREDITORS = [
  { holderName: 'Société Générale & Fils', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
  { holderName: 'Laden Müller GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
  { holderName: "L'Épicerie (Réunion)", iban: 'FR7630006000011234567890189', bic: 'BNPARERXXXX' },
];

const transferArb: fc.Arbitrary<CreditTransfer> = fc.record({
  payoutId: fc.uuid({ version: 4 }),
  // Up to the largest amount a SEPA credit transfer carries, 999,999,999.99.
  amountCents: fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 99_999_999_999 })),
  businessDay: fc.constantFrom('2026-01-31', '2026-11-26', '2027-02-28'),
  creditor: fc.constantFrom(...CREDITORS),
});

describe('pain.001', () => {
  it('validates against its schema and states the transfers’ sum and count, for any transfers, in both versions', () => {
    fc.assert(
      fc.property(fc.array(transferArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(...PAIN_FORMATS), (transfers, format) => {
        const file = buildPain001({
          format,
          messageId: messageIdOf(randomUUID(), '2026-11-27'),
          createdAt: new Date('2026-11-27T08:00:00Z'),
          executionDay: '2026-11-27',
          debtor: OPERATOR,
          transfers,
        });
        validateXml(file.xml, schemas[format]);
        const total = transfers.reduce((s, t) => s + t.amountCents, 0);
        expect(file.controlSumCents).toBe(total);
        expect(fileTotals(file.xml)).toEqual({ sums: [decimalOfCents(total), decimalOfCents(total)], counts: [String(transfers.length), String(transfers.length)] });
        for (const t of transfers) {
          expect(file.xml).toContain(`<Ustrd>${remittanceOf(t)}</Ustrd>`);
          expect(file.xml).toContain(`<EndToEndId>${t.payoutId.replace(/-/g, '')}</EndToEndId>`);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('writes names in the SEPA character set and the execution day as asked, whatever the process’s time zone', () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ['Pacific/Kiritimati', 'Pacific/Niue', 'UTC']) {
        // Node reads TZ again when it changes: the library writes the day of a local date.
        process.env.TZ = tz;
        const file = buildPain001({
          format: 'pain.001.001.09',
          messageId: 'CHIPIN20261127ABCDEF012345',
          createdAt: new Date('2026-11-27T08:00:00Z'),
          executionDay: '2026-11-28',
          debtor: OPERATOR,
          transfers: [{ payoutId: randomUUID(), amountCents: 1, businessDay: '2026-11-26', creditor: CREDITORS[0]! }],
        });
        expect(file.xml).toContain('<Nm>Societe Generale + Fils</Nm>');
        expect(file.xml).toContain('<Nm>Chipin Operateur SAS</Nm>');
        expect(file.xml, tz).toContain('<ReqdExctnDt><Dt>2026-11-28</Dt></ReqdExctnDt>');
        expect(file.xml).toContain('<InstdAmt Ccy="EUR">0.01</InstdAmt>');
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('keeps the message id and the ids derived from it within 35 characters', () => {
    const id = messageIdOf(randomUUID(), '2026-11-27');
    expect(id).toMatch(/^CHIPIN20261127[0-9A-F]{12}$/);
    expect(`${id}.0.9998`.length).toBeLessThanOrEqual(35);
  });

  it('refuses to build a file without a transfer, or with an amount that is not a positive integer of cents', () => {
    const base = { format: 'pain.001.001.09' as const, messageId: 'X1', createdAt: new Date(), executionDay: '2026-11-27', debtor: OPERATOR };
    expect(() => buildPain001({ ...base, transfers: [] })).toThrow(/at least one/);
    expect(() => buildPain001({ ...base, transfers: [{ payoutId: randomUUID(), amountCents: 10.5, businessDay: '2026-11-26', creditor: CREDITORS[0]! }] })).toThrow(
      /positive integer/,
    );
    expect(() => buildPain001({ ...base, transfers: [{ payoutId: randomUUID(), amountCents: 0, businessDay: '2026-11-26', creditor: CREDITORS[0]! }] })).toThrow(
      /positive integer/,
    );
  });
});
