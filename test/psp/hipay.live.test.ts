import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import type { CardInput } from '../../src/psp/connector.ts';
import { hipayDefinition } from '../../src/psp/hipay/definition.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The contract against HiPay's stage environment, with the merchant's test credentials:
 * CHIPIN_TEST_HIPAY_USERNAME, CHIPIN_TEST_HIPAY_PASSWORD, CHIPIN_TEST_HIPAY_SECRET_PASSPHRASE.
 * Skipped without them. The 3-D Secure steps need a browser on HiPay's pages and the lapse test
 * needs 7 real days, so those parts cannot pass unattended (see docs/psp/hipay.md).
 */
const username = process.env.CHIPIN_TEST_HIPAY_USERNAME;
const password = process.env.CHIPIN_TEST_HIPAY_PASSWORD;
const passphrase = process.env.CHIPIN_TEST_HIPAY_SECRET_PASSPHRASE;

function card(number: string): CardInput {
  return { number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123', holderName: 'Ada Lovelace' };
}

if (username && password && passphrase) {
  describeConnectorContract('hipay (stage)', async () => {
    const operations = await testOperations(systemClock);
    const build = () =>
      hipayDefinition.create(
        {
          id: randomUUID(),
          environment: 'test',
          credentials: { username, password, secret_passphrase: passphrase },
          baseUrl: hipayDefinition.baseUrl('test', {}),
        },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(hipayDefinition, 'test'),
          operations: operations.forAccount('hipay', 'live-test'),
        },
      );
    const connector = build();
    const manual = async () => {
      throw new Error('needs a shopper on HiPay’s 3-D Secure page or real days');
    };
    return {
      connector,
      // 4111… appears in HiPay's SDK documentation and 4000…0002 is the tokenization API's
      // example card; the refusal cards are the fake's and are NOT verified against HiPay stage:
      // replace them with the ones developer.hipay.com lists before relying on this suite.
      cards: {
        success: card('4111 1111 1111 1111'),
        declined: card('4000 0000 0000 0119'),
        challenge: card('4000 0000 0000 0002'),
        insufficientFunds: card('4000 0000 0000 0051'),
        offSessionFails: card('4000 0000 0000 0341'),
      },
      completeChallenge: manual,
      failChallenge: manual,
      advanceDays: manual,
      fresh: build,
      teardown: () => operations.close(),
    };
  });
} else {
  describe.skip('hipay (stage): set CHIPIN_TEST_HIPAY_USERNAME, CHIPIN_TEST_HIPAY_PASSWORD and CHIPIN_TEST_HIPAY_SECRET_PASSPHRASE to run the contract against HiPay stage', () => {
    it('is skipped', () => {});
  });
}
