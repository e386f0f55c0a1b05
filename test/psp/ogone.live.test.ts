import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { ogoneDefinition } from '../../src/psp/ogone/definition.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { card } from './fixtures/ogone/harness.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The contract suite against Ogone's real test environment (https://ogone.test.v-psp.com/ncol/test),
 * when a test account's credentials are in the environment. 3-D Secure challenges and the 7-day
 * hold cannot be driven from here: those tests fail against the real system by design (see
 * docs/psp/ogone.md); the rest is the same suite as against the fake.
 */
const VARS = ['PSPID', 'USER_ID', 'PASSWORD', 'SHA_IN', 'SHA_OUT', 'HASH_ALGORITHM'].map((v) => `CHIPIN_TEST_OGONE_${v}`);
const env = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const configured = VARS.every((v) => env[v]);

if (!configured) {
  describe.skip(`Ogone live test environment (set ${VARS.join(', ')} to run)`, () => {
    it('is skipped', () => {});
  });
} else {
  describeConnectorContract('ogone (live test environment)', async () => {
    const credentials = {
      pspid: env.CHIPIN_TEST_OGONE_PSPID!,
      user_id: env.CHIPIN_TEST_OGONE_USER_ID!,
      password: env.CHIPIN_TEST_OGONE_PASSWORD!,
      sha_in: env.CHIPIN_TEST_OGONE_SHA_IN!,
      sha_out: env.CHIPIN_TEST_OGONE_SHA_OUT!,
      hash_algorithm: env.CHIPIN_TEST_OGONE_HASH_ALGORITHM!,
    };
    const problem = ogoneDefinition.validate!(credentials, 'test');
    if (problem) throw new Error(`CHIPIN_TEST_OGONE_${problem.field.toUpperCase()}: ${problem.message}`);
    const operations = await testOperations(systemClock);
    const build = () =>
      ogoneDefinition.create(
        { id: 'live-test', environment: 'test', credentials, baseUrl: ogoneDefinition.baseUrl('test', credentials) },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(ogoneDefinition, 'test'),
          operations: operations.forAccount('ogone', 'live-test'),
        },
      );
    const connector = build();
    const manual = async () => {
      throw new Error('a real 3-D Secure page needs a browser: not automated');
    };
    return {
      connector,
      cards: {
        success: card('4111 1111 1111 1111'),
        // Ogone documents no refusing test card numbers that we could confirm; override with CHIPIN_TEST_OGONE_CARD_* if you have them.
        declined: card(process.env.CHIPIN_TEST_OGONE_CARD_DECLINED ?? '4000 0000 0000 0069'),
        challenge: card('4000 0000 0000 0002'),
        insufficientFunds: card(process.env.CHIPIN_TEST_OGONE_CARD_NO_FUNDS ?? '4000 0000 0000 9995'),
        offSessionFails: card(process.env.CHIPIN_TEST_OGONE_CARD_OFF_SESSION_FAILS ?? '4000 0000 0000 0341'),
      },
      completeChallenge: manual,
      failChallenge: manual,
      advanceDays: async () => {
        throw new Error('the real test environment has no clock to move');
      },
      fresh: build,
      teardown: () => operations.close(),
    };
  });
}
