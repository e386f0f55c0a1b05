import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import type { CardInput } from '../../src/psp/connector.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';
import { hyperswitchDefinition } from '../../src/psp/hyperswitch/definition.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { testOperations } from './fixtures/operations.ts';

/**
 * The contract against a Hyperswitch sandbox, with the merchant's credentials:
 * CHIPIN_TEST_HYPERSWITCH_API_KEY, CHIPIN_TEST_HYPERSWITCH_PROFILE_ID (and optionally
 * CHIPIN_TEST_HYPERSWITCH_PAYMENT_RESPONSE_HASH_KEY, and CHIPIN_TEST_HYPERSWITCH_BASE_URL for a
 * self-hosted Hyperswitch, whose host is then allowed as an operator would). Skipped without
 * them. The profile's processor decides which test cards decline: the refusal cards below are the
 * fake's (Stripe's test numbers, which a Stripe-backed profile shares) and are NOT verified
 * against every processor; the 3-D Secure steps need a shopper and the lapse test real days
 * (docs/psp/hyperswitch.md).
 */
const apiKey = process.env.CHIPIN_TEST_HYPERSWITCH_API_KEY;
const profileId = process.env.CHIPIN_TEST_HYPERSWITCH_PROFILE_ID;
const hashKey = process.env.CHIPIN_TEST_HYPERSWITCH_PAYMENT_RESPONSE_HASH_KEY ?? '';
const baseUrl = process.env.CHIPIN_TEST_HYPERSWITCH_BASE_URL ?? hyperswitchDefinition.baseUrl('test', {});

function card(number: string): CardInput {
  return { number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123', holderName: 'Ada Lovelace' };
}

if (apiKey && profileId) {
  describeConnectorContract('hyperswitch (sandbox)', async () => {
    const operations = await testOperations(systemClock);
    const endpoints = new PspEndpoints('production', [new URL(baseUrl).hostname]);
    const build = () =>
      hyperswitchDefinition.create(
        { id: randomUUID(), environment: 'test', credentials: { api_key: apiKey, profile_id: profileId, payment_response_hash_key: hashKey }, baseUrl },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: endpoints.httpFor(hyperswitchDefinition, 'test'),
          operations: operations.forAccount('hyperswitch', 'live-test'),
        },
      );
    const manual = async () => {
      throw new Error('needs a shopper on the issuer page or real days');
    };
    return {
      connector: build(),
      cards: {
        success: card('4242 4242 4242 4242'),
        declined: card('4000 0000 0000 0002'),
        challenge: card('4000 0000 0000 3220'),
        insufficientFunds: card('4000 0000 0000 9995'),
        offSessionFails: card('4000 0000 0000 0341'),
      },
      attachStoresCredential: true,
      completeChallenge: manual,
      failChallenge: manual,
      advanceDays: manual,
      fresh: build,
      teardown: () => operations.close(),
    };
  });
} else {
  describe.skip('hyperswitch (sandbox): set CHIPIN_TEST_HYPERSWITCH_API_KEY and CHIPIN_TEST_HYPERSWITCH_PROFILE_ID to run the contract against a Hyperswitch sandbox', () => {
    it('is skipped', () => {});
  });
}
