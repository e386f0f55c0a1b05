import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';
import { sipsDefinition } from '../../src/psp/sips/definition.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { testOperations } from './fixtures/operations.ts';
import { testCard as card } from './fixtures/sandbox/cards.ts';

/**
 * The contract suite against a Sips 2.0 test server (the brand's `office-server-<brand>.test.sips-services.com`,
 * or Worldline's), when a test shop's credentials are in the environment. 3-D Secure challenges
 * and the 7-day hold cannot be driven from here: those tests fail against the real system by
 * design (see docs/psp/sips.md); the rest is the same suite as against the fake.
 */
const VARS = ['BRAND', 'MERCHANT_ID', 'SECRET_KEY', 'KEY_VERSION'].map((v) => `CHIPIN_TEST_SIPS_${v}`);
const env = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const configured = VARS.every((v) => env[v]);

if (!configured) {
  describe.skip(`Sips live test environment (set ${VARS.join(', ')} to run)`, () => {
    it('is skipped', () => {});
  });
} else {
  describeConnectorContract('sips (live test environment)', async () => {
    const credentials = {
      brand: env.CHIPIN_TEST_SIPS_BRAND!,
      merchant_id: env.CHIPIN_TEST_SIPS_MERCHANT_ID!,
      secret_key: env.CHIPIN_TEST_SIPS_SECRET_KEY!,
      key_version: env.CHIPIN_TEST_SIPS_KEY_VERSION!,
    };
    const problem = validateCredentials(sipsDefinition, credentials, 'test');
    if (problem) throw new Error(`CHIPIN_TEST_SIPS_${problem.field.replace('credentials.', '').toUpperCase()}: ${problem.message}`);
    const operations = await testOperations(systemClock);
    const build = () =>
      sipsDefinition.create(
        { id: 'live-test', environment: 'test', credentials, baseUrl: sipsDefinition.baseUrl('test', credentials) },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(sipsDefinition, 'test'),
          operations: operations.forAccount('sips', 'live-test'),
        },
      );
    const manual = async () => {
      throw new Error('a real 3-D Secure page needs a browser: not automated');
    };
    // Sips' test servers answer by card number; override with the cards your bank's test guide gives.
    const c = (name: string, fallback: string) => card(process.env[`CHIPIN_TEST_SIPS_CARD_${name}`] ?? fallback);
    return {
      connector: build(),
      cards: {
        success: c('SUCCESS', '4111 1111 1111 1111'),
        declined: c('DECLINED', '4000 0000 0000 0069'),
        challenge: c('CHALLENGE', '4000 0000 0000 0002'),
        insufficientFunds: c('NO_FUNDS', '4000 0000 0000 9995'),
        offSessionFails: c('OFF_SESSION_FAILS', '4000 0000 0000 0341'),
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
