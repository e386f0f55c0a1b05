/**
 * The merchant parameters' checks (src/use-cases/merchant-setup/offer-parameters.ts), pure: each field's bad
 * values refused naming that field, the values kept when a patch leaves them out, and the rules
 * that differ in production.
 */
import { describe, expect, it } from 'vitest';
import { MERCHANT_PARAMETER_DEFAULTS, type Offer } from '../../src/accounts/offer.ts';
import { AddressPolicy } from '../../src/outbound/addresses.ts';
import { applyParameters, auditedValue, parameterView, type ParameterPatch } from '../../src/use-cases/merchant-setup/offer-parameters.ts';

const offer = (type: Offer['type']): Offer => ({
  id: '0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a',
  accountId: '6f1e2d3c-4b5a-4f7e-9a40-0b7e6a523c1d',
  type,
  installments: type === 'INSTALLMENTS' ? 3 : type === 'DOWN_PAYMENT' ? 2 : 1,
  deferredDays: type === 'DEFERRED' ? 30 : 0,
  depositPercent: type === 'DOWN_PAYMENT' ? 30 : null,
  maxBalanceDelayDays: type === 'DOWN_PAYMENT' ? 60 : null,
  currency: 'EUR',
  minAmountCents: 100,
  maxAmountCents: 1_000_000,
  accountName: 'Test Shop',
  accountTimeZone: 'Europe/Paris',
  accountCountry: null,
  psp: 'sandbox',
  pspAccountId: null,
  paymentMode: 'back',
  commissionBps: 0,
  commissionFixedCents: 0,
  maxAttempts: 3,
  potDeadlineHours: 48,
  expiryHours: 24,
  feeRateBps: 0,
  fixedFeeCents: 0,
  debitRateBps: 0,
  fundingCapCents: null,
  usuryCeilingBps: null,
  pspEnvironment: null,
  creditLender: null,
  lender: 'Test Shop',
  withdrawalDays: null,
  ...MERCHANT_PARAMETER_DEFAULTS,
});

const sandbox = { deployment: 'sandbox' as const, policy: new AddressPolicy('sandbox') };
const production = { deployment: 'production' as const, policy: new AddressPolicy('production') };
const refusedField = (o: Offer, patch: ParameterPatch, ctx: typeof sandbox | typeof production = sandbox) => {
  const r = applyParameters(o, patch, ctx);
  return 'ok' in r ? undefined : r.field;
};

describe('merchant parameters of an offer: checks', () => {
  it('sets every parameter, trims and upper-cases what a person types, and keeps what the patch leaves out', () => {
    const shared = applyParameters(
      offer('SHARED'),
      {
        country_code: ' be ',
        css_url: 'https://shop.example/pay.css',
        gtu_url: 'https://shop.example/terms',
        gtu_label: '  Our terms ',
        use_3ds: 'always',
        leader_can_pay_alone: false,
        purchase_end_notification_url: 'https://shop.example/pot-end?key=s3cret',
        send_confirmation_email: false,
        hold_renewal_days: 5,
      },
      sandbox,
    );
    expect('ok' in shared && parameterView(shared.ok)).toEqual({
      country_code: 'BE',
      css_url: 'https://shop.example/pay.css',
      gtu_url: 'https://shop.example/terms',
      gtu_label: 'Our terms',
      use_3ds: 'always',
      leader_can_pay_alone: false,
      purchase_end_notification_url: 'https://shop.example/pot-end?key=s3cret',
      send_confirmation_email: false,
      send_owed_share_reminder: true,
      hold_renewal_days: 5,
      funding_cap_cents: null,
      deposit_percent: null,
      max_balance_delay_days: null,
    });
    const credit = applyParameters(offer('INSTALLMENTS'), { send_owed_share_reminder: false, funding_cap_cents: 50_000 }, sandbox);
    expect('ok' in credit && credit.ok).toMatchObject({ ...MERCHANT_PARAMETER_DEFAULTS, sendOwedShareReminder: false, fundingCapCents: 50_000 });
    const cleared = applyParameters({ ...offer('SHARED'), countryCode: 'BE', cssUrl: 'https://a.example/x.css' }, { country_code: null, css_url: null }, sandbox);
    expect('ok' in cleared && [cleared.ok.countryCode, cleared.ok.cssUrl]).toEqual([null, null]);
  });

  it.each<[string, ParameterPatch]>([
    ['country_code', { country_code: 'ZZ' }],
    ['country_code', { country_code: 'France' }],
    ['css_url', { css_url: 'shop.example/pay.css' }],
    ['css_url', { css_url: 'javascript:alert(1)' }],
    ['css_url', { css_url: 'https://user:pw@shop.example/pay.css' }],
    ['css_url', { css_url: `https://shop.example/${'a'.repeat(2048)}` }],
    ['gtu_url', { gtu_url: 'ftp://shop.example/terms' }],
    ['gtu_label', { gtu_label: '   ' }],
    ['gtu_label', { gtu_label: 'two\nlines' }],
    ['gtu_label', { gtu_label: 'x'.repeat(101) }],
    ['use_3ds', { use_3ds: 'sometimes' as Offer['use3ds'] }],
    ['leader_can_pay_alone', { leader_can_pay_alone: 'yes' as unknown as boolean }],
    ['send_confirmation_email', { send_confirmation_email: 1 as unknown as boolean }],
    ['purchase_end_notification_url', { purchase_end_notification_url: 'mailto:shop@example.com' }],
    ['hold_renewal_days', { hold_renewal_days: 0 }],
    ['hold_renewal_days', { hold_renewal_days: 31 }],
    ['hold_renewal_days', { hold_renewal_days: 6.5 }],
  ])('refuses a bad %s (%j), naming it', (field, patch) => {
    expect(refusedField(offer('SHARED'), patch)).toBe(field);
  });

  it('refuses a credit offer’s funding limit out of bounds, naming it', () => {
    expect(refusedField(offer('DEFERRED'), { funding_cap_cents: 0 })).toBe('funding_cap_cents');
    expect(refusedField(offer('DEFERRED'), { funding_cap_cents: 100_000_001 })).toBe('funding_cap_cents');
  });

  it('refuses a parameter only the other kind of offer uses, unless it is sent with its unset value', () => {
    expect(refusedField(offer('INSTALLMENTS'), { gtu_url: 'https://shop.example/terms' })).toBe('gtu_url');
    expect(refusedField(offer('DEFERRED'), { leader_can_pay_alone: false })).toBe('leader_can_pay_alone');
    expect(refusedField(offer('INSTALLMENTS'), { purchase_end_notification_url: 'https://shop.example/end' })).toBe('purchase_end_notification_url');
    expect(refusedField(offer('SHARED'), { funding_cap_cents: 10_000 })).toBe('funding_cap_cents');
    expect(refusedField(offer('SHARED'), { send_owed_share_reminder: false })).toBe('send_owed_share_reminder');
    // What GET answers for the other kind may be sent back as it is.
    expect(refusedField(offer('INSTALLMENTS'), { gtu_url: null, gtu_label: null, leader_can_pay_alone: true, purchase_end_notification_url: null })).toBeUndefined();
    expect(refusedField(offer('SHARED'), { funding_cap_cents: null, send_owed_share_reminder: true })).toBeUndefined();
  });

  it('a down payment’s deposit (1 to 99 %) and maximum balance delay (1 to 365 days): set on a DOWN_PAYMENT offer, required there, unset elsewhere', () => {
    const set = applyParameters(offer('DOWN_PAYMENT'), { deposit_percent: 40, max_balance_delay_days: 90 }, sandbox);
    expect('ok' in set && [set.ok.depositPercent, set.ok.maxBalanceDelayDays]).toEqual([40, 90]);
    const kept = applyParameters(offer('DOWN_PAYMENT'), { use_3ds: 'always' }, sandbox);
    expect('ok' in kept && [kept.ok.depositPercent, kept.ok.maxBalanceDelayDays]).toEqual([30, 60]);
    for (const [field, patch] of [
      ['deposit_percent', { deposit_percent: 0 }],
      ['deposit_percent', { deposit_percent: 100 }],
      ['deposit_percent', { deposit_percent: 33.3 }],
      ['max_balance_delay_days', { max_balance_delay_days: 0 }],
      ['max_balance_delay_days', { max_balance_delay_days: 366 }],
    ] as const) {
      expect(refusedField(offer('DOWN_PAYMENT'), patch)).toBe(field);
    }
    expect(applyParameters(offer('DOWN_PAYMENT'), { deposit_percent: null }, sandbox)).toMatchObject({ field: 'deposit_percent', refusal: { code: 'required' } });
    expect(applyParameters(offer('INSTALLMENTS'), { max_balance_delay_days: 30 }, sandbox)).toMatchObject({
      field: 'max_balance_delay_days',
      refusal: { code: 'down_payment_only' },
    });
    // What GET answers for another kind (null) may be sent back as it is.
    expect(refusedField(offer('SHARED'), { deposit_percent: null, max_balance_delay_days: null })).toBeUndefined();
  });

  it('in production: the stylesheet over https only, the end-of-pot URL under the webhook URL rule (https, no internal address)', () => {
    expect(refusedField(offer('SHARED'), { css_url: 'http://shop.example/pay.css' })).toBeUndefined();
    expect(refusedField(offer('SHARED'), { css_url: 'http://shop.example/pay.css' }, production)).toBe('css_url');
    expect(refusedField(offer('SHARED'), { css_url: 'https://shop.example/pay.css' }, production)).toBeUndefined();
    expect(refusedField(offer('SHARED'), { gtu_url: 'http://shop.example/terms' }, production)).toBeUndefined();
    expect(refusedField(offer('SHARED'), { purchase_end_notification_url: 'http://localhost:8080/end' })).toBeUndefined();
    expect(refusedField(offer('SHARED'), { purchase_end_notification_url: 'http://shop.example/end' }, production)).toBe('purchase_end_notification_url');
    const internal = applyParameters(offer('SHARED'), { purchase_end_notification_url: 'https://10.0.0.5/end' }, production);
    expect(internal).toMatchObject({ field: 'purchase_end_notification_url', message: 'must not point to an internal address (10.0.0.5)' });
  });

  it('the audit log keeps only the host of the end-of-pot URL (its query may carry the merchant’s secret)', () => {
    expect(auditedValue('purchase_end_notification_url', 'https://shop.example/end?key=s3cret')).toBe('shop.example');
    expect(auditedValue('css_url', 'https://shop.example/pay.css')).toBe('https://shop.example/pay.css');
    expect(auditedValue('purchase_end_notification_url', null)).toBeNull();
  });
});
