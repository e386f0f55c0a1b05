import { describe, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { moneticoDefinition } from '../../src/psp/monetico/definition.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { testCard as card } from './fixtures/sandbox/cards.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The contract suite against Monetico's test server (https://p.monetico-services.com/test), when
 * a test TPE's credentials are in the environment. 3-D Secure challenges and the 7-day hold
 * cannot be driven from here: those tests fail against the real system by design; the rest is the
 * same suite as against the fake, and checks the decisions docs/psp/monetico.md lists as taken
 * without a source.
 */
const VARS = ['TPE', 'SOCIETE', 'KEY'].map((v) => `CHIPIN_TEST_MONETICO_${v}`);
const env = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const configured = VARS.every((v) => env[v]);

if (!configured) {
  describe.skip(`Monetico live test environment (set ${VARS.join(', ')} to run)`, () => {
    it('is skipped', () => {});
  });
} else {
  describeConnectorContract('monetico (live test environment)', async () => {
    const credentials = { tpe: env.CHIPIN_TEST_MONETICO_TPE!, societe: env.CHIPIN_TEST_MONETICO_SOCIETE!, key: env.CHIPIN_TEST_MONETICO_KEY! };
    const problem = validateCredentials(moneticoDefinition, credentials, 'test');
    if (problem) throw new Error(`CHIPIN_TEST_MONETICO_${problem.field.replace('credentials.', '').toUpperCase()}: ${problem.message}`);
    const operations = await testOperations(systemClock);
    const build = () =>
      moneticoDefinition.create(
        { id: 'live-test', environment: 'test', credentials, baseUrl: moneticoDefinition.baseUrl('test', credentials) },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(moneticoDefinition, 'test'),
          operations: operations.forAccount('monetico', 'live-test'),
        },
      );
    const manual = async () => {
      throw new Error('a real 3-D Secure page needs a browser: not automated');
    };
    return {
      connector: build(),
      cards: {
        success: card(process.env.CHIPIN_TEST_MONETICO_CARD_SUCCESS ?? '4111 1111 1111 1111'),
        // Monetico lists its test cards on its test payment page; override with the ones your TPE shows.
        declined: card(process.env.CHIPIN_TEST_MONETICO_CARD_DECLINED ?? '4000 0000 0000 0069'),
        challenge: card(process.env.CHIPIN_TEST_MONETICO_CARD_CHALLENGE ?? '4000 0000 0000 0002'),
        insufficientFunds: card(process.env.CHIPIN_TEST_MONETICO_CARD_NO_FUNDS ?? '4000 0000 0000 9995'),
        offSessionFails: card(process.env.CHIPIN_TEST_MONETICO_CARD_OFF_SESSION_FAILS ?? '4000 0000 0000 0341'),
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
