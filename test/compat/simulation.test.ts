import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.ts';
import { compatBed, type OfferKind } from './bed.ts';
import { fixture, type Fixture, type FixtureRequest } from './fixtures.ts';

// The plugins' simulation calls (fixtures/*/simulation.json), replayed byte for byte: what each
// plugin's script or PHP reads in the answer.

const bed = compatBed();

describe(`the plugins' simulation calls (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  const cases: [string, Fixture, OfferKind, 'INSTALLMENT' | 'DEFERRED'][] = [
    ['WooCommerce, a float amount, text/plain, a deferred offer', fixture('woocommerce', 'simulation'), 'DEFERRED', 'DEFERRED'],
    ['PrestaShop 1.7, text/plain, 3x', fixture('prestashop1.7', 'simulation'), 'INSTALLMENTS', 'INSTALLMENT'],
    ['Sylius, server side without Content-Type, 3x', fixture('sylius', 'simulation'), 'INSTALLMENTS', 'INSTALLMENT'],
    ['Sylius, server side without Content-Type, deferred', fixture('sylius', 'simulation'), 'DEFERRED', 'DEFERRED'],
    ['WooCommerce, a float amount, text/plain, a down payment', fixture('woocommerce', 'simulation'), 'DOWN_PAYMENT', 'INSTALLMENT'],
    ['PrestaShop 1.7, text/plain, a down payment', fixture('prestashop1.7', 'simulation'), 'DOWN_PAYMENT', 'INSTALLMENT'],
    ['Sylius, server side without Content-Type, a down payment', fixture('sylius', 'simulation'), 'DOWN_PAYMENT', 'INSTALLMENT'],
  ];
  for (const [name, f, kind, key] of cases) {
    it(`${name}: 200 with ${key} and the keys the plugin reads`, async () => {
      const res = await bed.replay(f, kind);
      expect(res.statusCode, res.body).toBe(200);
      if ((f.request as FixtureRequest).headers?.origin) expect(res.headers['access-control-allow-origin']).toBeDefined();
      const data = res.json() as Record<string, unknown>;
      const wanted = (f.expect as Record<string, string[]>)[key]!;
      const rows = key === 'INSTALLMENT' ? (data.INSTALLMENT as Record<string, unknown>[]) : [data.DEFERRED as Record<string, unknown>];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row).toBeTypeOf('object');
        for (const k of wanted) expect(row, k).toHaveProperty(k);
        expect(Number.isInteger(row.amount_cents)).toBe(true);
        expect(Number.isNaN(new Date(String(row.payment_date)).getTime())).toBe(false);
      }
      // WooCommerce and PrestaShop read INSTALLMENT before DEFERRED: a deferred offer answers DEFERRED alone, or its
      // payment in 30 days would show as one to pay now; an installment plan answers no DEFERRED.
      if (kind === 'DEFERRED') expect(data).not.toHaveProperty('INSTALLMENT');
      if (kind === 'INSTALLMENTS') expect(data).not.toHaveProperty('DEFERRED');
      if (kind === 'DOWN_PAYMENT') {
        // No plugin knows a down payment: each reads INSTALLMENT (WooCommerce and PrestaShop before DEFERRED,
        // Sylius DEFERRED first, so there must be none) and shows the deposit, then the balance, as two due dates.
        expect(data).not.toHaveProperty('DEFERRED');
        expect(rows.map((r) => r.payment_date)).toEqual(['2026-01-01', '2026-03-02']);
        const amount = Math.round(Number(JSON.parse((f.request as FixtureRequest).body!).amount_cents));
        expect(rows.reduce((sum, r) => sum + Number(r.amount_cents), 0)).toBe(amount);
      }
    });
  }
});
