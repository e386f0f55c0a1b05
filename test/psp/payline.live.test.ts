import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { paylineDefinition } from '../../src/psp/payline/definition.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { card } from './fixtures/payline/harness.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The contract suite against Payline's homologation environment
 * (https://homologation.payline.com/V4/services), when a test account's credentials are in the
 * environment. Payline gives each merchant its homologation test cards: set them with
 * CHIPIN_TEST_PAYLINE_CARD_*. 3-D Secure pages and the 7-day hold cannot be driven from here: those
 * tests fail against the real system by design (see docs/psp/payline.md).
 */
const VARS = ['MERCHANT_ID', 'ACCESS_KEY', 'CONTRACT_NUMBER'].map((v) => `CHIPIN_TEST_PAYLINE_${v}`);
const env = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const configured = VARS.every((v) => env[v]);

if (!configured) {
  describe.skip(`Payline homologation environment (set ${VARS.join(', ')} to run)`, () => {
    it('is skipped', () => {});
  });
} else {
  describeConnectorContract('payline (homologation)', async () => {
    const credentials = {
      merchant_id: env.CHIPIN_TEST_PAYLINE_MERCHANT_ID!,
      access_key: env.CHIPIN_TEST_PAYLINE_ACCESS_KEY!,
      contract_number: env.CHIPIN_TEST_PAYLINE_CONTRACT_NUMBER!,
    };
    const problem = validateCredentials(paylineDefinition, credentials, 'test');
    if (problem) throw new Error(`CHIPIN_TEST_PAYLINE_${problem.field.replace('credentials.', '').toUpperCase()}: ${problem.message}`);
    const operations = await testOperations(systemClock);
    const build = () =>
      paylineDefinition.create(
        { id: 'live-test', environment: 'test', credentials, baseUrl: paylineDefinition.baseUrl('test', credentials) },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(paylineDefinition, 'test'),
          operations: operations.forAccount('payline', 'live-test'),
        },
      );
    const manual = async () => {
      throw new Error('a real 3-D Secure page needs a browser: not automated');
    };
    const cardOf = (name: string, fallback: string) => card(process.env[`CHIPIN_TEST_PAYLINE_CARD_${name}`] ?? fallback);
    return {
      connector: build(),
      cards: {
        // The fallbacks are the fake's cards: Monext gives each merchant its homologation cards.
        success: cardOf('SUCCESS', '4111 1111 1111 1111'),
        declined: cardOf('DECLINED', '4000 0000 0000 0069'),
        challenge: cardOf('CHALLENGE', '4000 0000 0000 0002'),
        insufficientFunds: cardOf('NO_FUNDS', '4000 0000 0000 9995'),
        offSessionFails: cardOf('OFF_SESSION_FAILS', '4000 0000 0000 0341'),
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
