import { systemClock } from '../../src/domain/clock.ts';
import { describe, it } from 'vitest';
import { lyraDefinition, LYRA_DEFAULT_BASE_URL } from '../../src/psp/lyra/definition.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { LYRA_CARDS, ManualClock } from './fixtures/lyra/harness.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The connector contract against Lyra's real test environment (the shop's test password), run
 * only when CHIPIN_TEST_LYRA_SHOP_ID, CHIPIN_TEST_LYRA_PASSWORD and CHIPIN_TEST_LYRA_HMAC_KEY are
 * set; CHIPIN_TEST_LYRA_BASE_URL picks another brand than PayZen. The shop must have the PCI-DSS
 * REST services enabled (card data sent to Charge/CreateToken).
 *
 * Two parts of the suite cannot pass unattended against a real PSP: the 3-D Secure tests (the
 * challenge page needs a browser) and the 7-day lapse (Lyra's clock cannot be moved); they fail
 * with a message saying so.
 */
const shopId = process.env.CHIPIN_TEST_LYRA_SHOP_ID;
const password = process.env.CHIPIN_TEST_LYRA_PASSWORD;
const hmacKey = process.env.CHIPIN_TEST_LYRA_HMAC_KEY;

if (shopId && password && hmacKey) {
  describeConnectorContract('lyra (live test environment)', async () => {
    const operations = await testOperations(systemClock);
    const build = () =>
      lyraDefinition.create(
        {
          id: 'live-test',
          environment: 'test',
          credentials: { shop_id: shopId, password, hmac_key: hmacKey },
          baseUrl: process.env.CHIPIN_TEST_LYRA_BASE_URL ?? LYRA_DEFAULT_BASE_URL,
        },
        {
          clock: new ManualClock(),
          publicUrl: 'https://chipin.example',
          timeoutMs: 20_000,
          http: new PspEndpoints('production').httpFor(lyraDefinition, 'test'),
          operations: operations.forAccount('lyra', 'live-test'),
        },
      );
    const connector = build();
    const manual = (what: string) => async () => {
      throw new Error(`lyra live: ${what} cannot be automated against Lyra's test environment`);
    };
    return {
      connector,
      cards: LYRA_CARDS,
      completeChallenge: manual('completing a 3-D Secure challenge (a browser on the ACS page)'),
      failChallenge: manual('failing a 3-D Secure challenge (a browser on the ACS page)'),
      advanceDays: manual("moving Lyra's clock"),
      fresh: build,
      teardown: () => operations.close(),
    };
  });
} else {
  describe.skip('lyra live: set CHIPIN_TEST_LYRA_SHOP_ID, CHIPIN_TEST_LYRA_PASSWORD and CHIPIN_TEST_LYRA_HMAC_KEY to run the contract against Lyra’s test environment', () => {
    it('skipped', () => {});
  });
}
