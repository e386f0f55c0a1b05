import { describe, expect, it } from 'vitest';
import { DEFAULT_HOLD_DAYS, holdValidityDays } from '../../src/psp/definition.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { holdLapsesAt, isReauthorization, nextReauthKey } from '../../src/use-cases/installments/reauthorize-hold.ts';

/** docs/psp-connectors.md#authorisation-validity and docs/money-operations.md#re-authorisation. */
describe('authorisation validity of the connectors', () => {
  it.each(CONNECTOR_DEFINITIONS.map((d) => [d.name, d] as const))('%s declares how long its holds live, where the figure comes from, and the release after a void', (_name, d) => {
    const v = d.authorizationValidity!;
    expect(v).toBeDefined();
    expect(Number.isInteger(v.default) && v.default >= 1 && v.default <= 31).toBe(true);
    for (const days of Object.values(v.byBrand ?? {})) expect(Number.isInteger(days) && days >= 1).toBe(true);
    // A merchant-initiated window is never longer than the customer-initiated one it shortens.
    for (const [brand, days] of Object.entries(v.merchantInitiatedByBrand ?? {})) expect(days > 0 && days <= (v.byBrand?.[brand] ?? v.default)).toBe(true);
    expect(v.voidReleaseHours === null || v.voidReleaseHours >= 0).toBe(true);
    expect(v.source.length).toBeGreaterThan(10);
  });

  it('the connectors that place merchant-initiated holds are exactly those listed (the others keep the lapse fallback)', () => {
    const holding = CONNECTOR_DEFINITIONS.filter((d) => d.authorizationValidity?.offSessionHold).map((d) => d.name);
    expect([...holding].sort()).toEqual([
      'adyen',
      'braintree',
      'centralpay',
      'checkout',
      'fondy',
      'halyk',
      'hipay',
      'hyperswitch',
      'lyra',
      'mercadopago',
      'midtrans',
      'monetico',
      'ogone',
      'paybox',
      'payline',
      'sandbox',
      'sips',
      'stripe',
    ]);
  });

  it('reads the brand’s own figure (a renewal’s merchant-initiated one first), else the default, else 7 days', () => {
    const def = { authorizationValidity: { default: 5, byBrand: { visa: 9 }, voidReleaseHours: null, source: 'test definition' } };
    expect(holdValidityDays(def, 'VISA')).toBe(9);
    expect(holdValidityDays(def, 'mastercard')).toBe(5);
    expect(holdValidityDays(def, undefined)).toBe(5);
    expect(holdValidityDays(undefined, 'visa')).toBe(DEFAULT_HOLD_DAYS);
    const mit = { authorizationValidity: { ...def.authorizationValidity, merchantInitiatedByBrand: { visa: 4.75 } } };
    expect(holdValidityDays(mit, 'visa', true)).toBe(4.75);
    expect(holdValidityDays(mit, 'visa', false)).toBe(9);
    expect(holdValidityDays(mit, 'mastercard', true)).toBe(5);
    expect(holdLapsesAt(new Date('2026-01-01T10:00:00Z'), 4.75).toISOString()).toBe('2026-01-06T04:00:00.000Z');
    expect(holdLapsesAt(new Date('2026-01-01T10:00:00Z'), 7).toISOString()).toBe('2026-01-08T10:00:00.000Z');
  });

  it('numbers the renewals of a hold from its first key', () => {
    expect(nextReauthKey('p1:leader:1')).toBe('p1:leader:1:reauth:1');
    expect(nextReauthKey('p1:leader:1:reauth:1')).toBe('p1:leader:1:reauth:2');
    expect(nextReauthKey('p1:leader:1:reauth:9')).toBe('p1:leader:1:reauth:10');
    expect(isReauthorization({ idempotency_key: 'p1:leader:1:reauth:2' })).toBe(true);
    expect(isReauthorization({ idempotency_key: 'p1:leader:1:share' })).toBe(false);
  });
});
