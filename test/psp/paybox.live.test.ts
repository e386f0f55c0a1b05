import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { payboxDefinition } from '../../src/psp/paybox/definition.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { card } from './fixtures/paybox/harness.ts';

/**
 * The contract suite against Paybox's pre-production (https://preprod-ppps.paybox.com/PPPS.php),
 * when a test account's credentials are in the environment (Paybox's public test account, or
 * your own pre-production site with the Direct Plus option). 3-D Secure challenges need a browser
 * at the RemoteMPI and the 7-day hold a clock that moves: those tests fail against the real
 * system by design (docs/psp/paybox.md); the rest is the same suite as against the fake.
 */
// PUBLIC_KEY: Paybox's pubkey.pem on one line (docs/psp/paybox.md#credentials-the-psp-account-form).
const VARS = ['SITE', 'RANK', 'IDENTIFIER', 'CLE', 'PUBLIC_KEY'].map((v) => `CHIPIN_TEST_PAYBOX_${v}`);
const env = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const configured = VARS.every((v) => env[v]);

if (!configured) {
  describe.skip(`Paybox pre-production (set ${VARS.join(', ')} to run)`, () => {
    it('is skipped', () => {});
  });
} else {
  describeConnectorContract('paybox (pre-production)', async () => {
    const credentials = {
      site: env.CHIPIN_TEST_PAYBOX_SITE!,
      rank: env.CHIPIN_TEST_PAYBOX_RANK!,
      identifier: env.CHIPIN_TEST_PAYBOX_IDENTIFIER!,
      cle: env.CHIPIN_TEST_PAYBOX_CLE!,
      public_key: env.CHIPIN_TEST_PAYBOX_PUBLIC_KEY!,
    };
    const problem = validateCredentials(payboxDefinition, credentials, 'test');
    if (problem) throw new Error(`CHIPIN_TEST_PAYBOX_${problem.field.replace('credentials.', '').toUpperCase()}: ${problem.message}`);
    const operations = await testOperations(systemClock);
    const baseUrl = process.env.CHIPIN_TEST_PAYBOX_BASE_URL ?? payboxDefinition.baseUrl('test', credentials);
    const build = () =>
      payboxDefinition.create(
        { id: '00000000-0000-4000-8000-0000000000b1', environment: 'test', credentials, baseUrl },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(payboxDefinition, 'test'),
          operations: operations.forAccount('paybox', 'live-test'),
        },
      );
    const manual = async () => {
      throw new Error('a real 3-D Secure page needs a browser: not automated');
    };
    return {
      connector: build(),
      cards: {
        // The card the published clients use against the pre-production.
        success: card('4012 0010 3714 1112'),
        // Paybox documents refusals through ERRORCODETEST rather than card numbers; override with cards you know.
        declined: card(process.env.CHIPIN_TEST_PAYBOX_CARD_DECLINED ?? '4000 0000 0000 0069'),
        challenge: card(process.env.CHIPIN_TEST_PAYBOX_CARD_3DS ?? '4000 0000 0000 0002'),
        insufficientFunds: card(process.env.CHIPIN_TEST_PAYBOX_CARD_NO_FUNDS ?? '4000 0000 0000 9995'),
        offSessionFails: card(process.env.CHIPIN_TEST_PAYBOX_CARD_OFF_SESSION_FAILS ?? '4000 0000 0000 0341'),
      },
      completeChallenge: manual,
      failChallenge: manual,
      advanceDays: async () => {
        throw new Error('the real pre-production has no clock to move');
      },
      attachStoresCredential: true,
      fresh: build,
      teardown: () => operations.close(),
    };
  });
}
