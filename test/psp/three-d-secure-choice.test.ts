import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { askedThreeDSecure, type AuthorizeInput, type CardInput, type PspConnector } from '../../src/psp/connector.ts';
import { adyenHarness } from './fixtures/adyen/harness.ts';
import { checkoutHarness } from './fixtures/checkout/harness.ts';
import { dalenysHarness } from './fixtures/dalenys/harness.ts';
import { hipayHarness } from './fixtures/hipay/harness.ts';
import { hyperswitchHarness } from './fixtures/hyperswitch/harness.ts';
import { mercadopagoHarness } from './fixtures/mercadopago/harness.ts';
import { moneticoHarness } from './fixtures/monetico/harness.ts';
import { stripeHarness } from './fixtures/stripe/harness.ts';

/**
 * The merchant's 3-D Secure choice (an offer's `use3ds`) as each connector that maps it sends it
 * to its PSP's fake, and what the fake's issuer then does
 * (docs/psp-connectors.md#the-merchants-3-d-secure-choice). The sandbox PSP's side is observed
 * through the payment flows (test/use-cases/merchant-parameters.test.ts).
 */

const RETURN_URL = 'http://127.0.0.1:3000/return';

async function pay(connector: PspConnector, card: CardInput, extra: Partial<AuthorizeInput> = {}) {
  const pm = await connector.attachPaymentMethod({ idempotencyKey: randomUUID(), card });
  if (!pm.ok) throw new Error(`attach refused: ${pm.message}`);
  return connector.authorize({
    idempotencyKey: randomUUID(),
    paymentMethodId: pm.paymentMethodId,
    amountCents: 1_500,
    currency: 'EUR',
    capture: 'automatic',
    returnUrl: RETURN_URL,
    ...extra,
  });
}

describe('askedThreeDSecure', () => {
  it('always and never as asked; never on a checkout that stores the card is auto (PSD2); absent is auto', () => {
    expect(askedThreeDSecure({ threeDSecure: 'always' })).toBe('always');
    expect(askedThreeDSecure({ threeDSecure: 'always', storeForLater: true })).toBe('always');
    expect(askedThreeDSecure({ threeDSecure: 'never' })).toBe('never');
    expect(askedThreeDSecure({ threeDSecure: 'never', storeForLater: true })).toBe('auto');
    expect(askedThreeDSecure({})).toBe('auto');
  });
});

describe('each connector that maps it', () => {
  it('stripe: always sends request_three_d_secure=any (an approving card is then challenged); never and auto send nothing', async () => {
    const h = await stripeHarness();
    try {
      const always = await pay(h.connector, h.cards.success, { threeDSecure: 'always' });
      expect(always.status).toBe('requires_action');
      expect(h.fake.intents.get(always.transactionId)?.requestThreeDSecure).toBe('any');
      const never = await pay(h.connector, h.cards.success, { threeDSecure: 'never' });
      expect(never.status).toBe('captured');
      expect(h.fake.intents.get(never.transactionId)?.requestThreeDSecure).toBeNull();
    } finally {
      await h.teardown();
    }
  });

  it('adyen: always challenges an approving card; never declines a card that requires authentication, unless the checkout stores the card', async () => {
    const h = await adyenHarness();
    try {
      expect((await pay(h.connector, h.cards.success, { threeDSecure: 'always' })).status).toBe('requires_action');
      const never = await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' });
      expect(never).toMatchObject({ status: 'declined', decline: { reason: 'authentication_failed' } });
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'never', storeForLater: true, capture: 'manual' })).status).toBe('requires_action');
      expect((await pay(h.connector, h.cards.success)).status).toBe('captured');
    } finally {
      await h.teardown();
    }
  });

  it('checkout: always asks for a challenge (an approving card is then challenged); never asks for none, but a card that requires it is still challenged', async () => {
    const h = await checkoutHarness();
    try {
      expect((await pay(h.connector, h.cards.success, { threeDSecure: 'always' })).status).toBe('requires_action');
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' })).status).toBe('requires_action');
      expect((await pay(h.connector, h.cards.success, { threeDSecure: 'never' })).status).toBe('captured');
    } finally {
      await h.teardown();
    }
  });

  it('hipay: authentication_indicator 2 for always, 0 for never (no challenge then), 1 for auto', async () => {
    const h = await hipayHarness();
    try {
      const always = await pay(h.connector, h.cards.success, { threeDSecure: 'always' });
      expect(h.fake.authenticationIndicatorOf(always.transactionId)).toBe('2');
      const never = await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' });
      expect(h.fake.authenticationIndicatorOf(never.transactionId)).toBe('0');
      expect(never.status).toBe('captured');
      const auto = await pay(h.connector, h.cards.challenge);
      expect(h.fake.authenticationIndicatorOf(auto.transactionId)).toBe('1');
      expect(auto.status).toBe('requires_action');
    } finally {
      await h.teardown();
    }
  });

  it('mercadopago: never sends not_supported (a card that requires 3-D Secure is then rejected); always stays optional (challenged as under auto)', async () => {
    const h = await mercadopagoHarness();
    try {
      expect(await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' })).toMatchObject({ status: 'declined', decline: { reason: 'authentication_failed' } });
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'always' })).status).toBe('requires_action');
    } finally {
      await h.teardown();
    }
  });

  it('monetico: never requests no challenge (the fake’s issuer then skips it); auto has no preference (challenged)', async () => {
    const h = await moneticoHarness();
    try {
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' })).status).toBe('captured');
      expect((await pay(h.connector, h.cards.challenge)).status).toBe('requires_action');
    } finally {
      await h.teardown();
    }
  });

  it('dalenys: 3DSECUREPREFERENCE sca for always, frictionless for never, none for auto', async () => {
    const h = await dalenysHarness();
    try {
      const sent = async (extra: Partial<AuthorizeInput>) => h.fake.transaction((await pay(h.connector, h.cards.success, extra)).transactionId)?.preference;
      expect(await sent({ threeDSecure: 'always' })).toBe('sca');
      expect(await sent({ threeDSecure: 'never' })).toBe('frictionless');
      expect(await sent({})).toBeUndefined();
    } finally {
      await h.teardown();
    }
  });

  it('hyperswitch: never sends no_three_ds (no challenge then); auto and always three_ds (challenged)', async () => {
    const h = await hyperswitchHarness();
    try {
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'never' })).status).toBe('captured');
      expect((await pay(h.connector, h.cards.challenge, { threeDSecure: 'always' })).status).toBe('requires_action');
    } finally {
      await h.teardown();
    }
  });
});
