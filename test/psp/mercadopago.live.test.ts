import { describe, it } from 'vitest';
import type { CardInput } from '../../src/psp/connector.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { mercadopagoDefinition } from '../../src/psp/mercadopago/definition.ts';
import { testOperations } from './fixtures/operations.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';

/**
 * The contract suite against Mercado Pago with a test application's credentials:
 * CHIPIN_TEST_MERCADOPAGO_ACCESS_TOKEN (TEST-… or a test user's APP_USR-…) and
 * CHIPIN_TEST_MERCADOPAGO_WEBHOOK_SECRET. Skipped otherwise.
 *
 * Mercado Pago's test cards give their outcome by the cardholder's name (APRO approved, OTHE
 * declined, FUND insufficient funds). Known gaps (docs/psp/mercadopago.md): the contract pays in
 * EUR, which a Mercado Pago account (ARS, BRL, MXN…) refuses; the challenge needs a browser on the
 * issuer's page; moving days is not possible; no test card declines only off session.
 */
const accessToken = process.env.CHIPIN_TEST_MERCADOPAGO_ACCESS_TOKEN;
const webhookSecret = process.env.CHIPIN_TEST_MERCADOPAGO_WEBHOOK_SECRET;

const card = (number: string, holderName: string): CardInput => ({ number, expMonth: 11, expYear: new Date().getUTCFullYear() + 5, cvc: '123', holderName });

if (accessToken && webhookSecret) {
  describeConnectorContract('mercadopago (live test mode)', async () => {
    const operations = await testOperations(systemClock);
    const build = () =>
      mercadopagoDefinition.create(
        { id: 'live-test', environment: 'test', credentials: { access_token: accessToken, webhook_secret: webhookSecret }, baseUrl: mercadopagoDefinition.baseUrl('test', {}) },
        {
          clock: systemClock,
          publicUrl: 'https://chipin.example',
          timeoutMs: 30_000,
          http: new PspEndpoints('production').httpFor(mercadopagoDefinition, 'test'),
          operations: operations.forAccount('mercadopago', 'live-test'),
        },
      );
    const unattended = async () => {
      throw new Error('needs a browser on the issuer’s 3-D Secure page');
    };
    return {
      connector: build(),
      cards: {
        success: card('5031 7557 3453 0604', 'APRO'),
        declined: card('5031 7557 3453 0604', 'OTHE'),
        challenge: card('5031 7557 3453 0604', 'APRO'),
        insufficientFunds: card('5031 7557 3453 0604', 'FUND'),
        offSessionFails: card('5031 7557 3453 0604', 'OTHE'),
      },
      completeChallenge: unattended,
      failChallenge: unattended,
      advanceDays: async () => {
        throw new Error('Mercado Pago’s test mode has no clock to move');
      },
      fresh: build,
      teardown: () => operations.close(),
    };
  });
} else {
  describe.skip('PSP connector contract: mercadopago (live test mode)', () => {
    it('needs CHIPIN_TEST_MERCADOPAGO_ACCESS_TOKEN and CHIPIN_TEST_MERCADOPAGO_WEBHOOK_SECRET', () => {});
  });
}
