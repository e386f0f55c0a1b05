import type { ConnectorDefinition } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { HALYK_BASE_URLS, HALYK_HOSTS, HALYK_PUBLIC_KEY_EXPECTED, HalykConnector, halykPublicKey } from './connector.ts';
import { HALYK_HOLD_DAYS } from './mapping.ts';

/**
 * Halyk bank's ePay (Kazakhstan), on the merchant's own ePay terminal (back mode). The client id
 * and secret get an OAuth token per operation for the terminal; card data goes to ePay encrypted
 * with its RSA public key (the cryptogram). The terminal must run ePay's two-step scheme (DMS).
 * See docs/psp/halyk.md.
 */
export const halykDefinition: ConnectorDefinition = {
  name: 'halyk',
  label: 'Halyk bank (ePay)',
  authorizationValidity: {
    default: HALYK_HOLD_DAYS,
    voidReleaseHours: null,
    source: 'ePay: how long a hold (AUTH) stays capturable is not published; 7 days assumed (docs/psp/halyk.md); release after cancel: not documented',
    // `POST /payments/cards/auth` by CardID, left AUTH for a later charge (the two-step terminal).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  // KZT (and USD, which ePay's card verification example uses), in tiyn and cents: ePay's amounts have two decimals.
  currencies: { KZT: 1, USD: 1 },
  credentialFields: [
    {
      name: 'client_id',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9._@-]{2,64}',
      format: '2 to 64 letters, digits, ., _, @ or -',
      description: 'The ClientID ePay gave on registration, also shown in the ePay merchant cabinet (epay.homebank.kz). The test and production environments have their own.',
    },
    {
      name: 'client_secret',
      secret: true,
      required: true,
      pattern: '[!-~]{8,128}',
      format: '8 to 128 visible characters, no spaces',
      description: 'The ClientSecret given with the ClientID (ePay merchant cabinet). Test and production secrets differ.',
    },
    {
      name: 'terminal_id',
      secret: false,
      required: true,
      pattern: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
      format: 'a UUID (8-4-4-4-12 hexadecimal digits)',
      description: 'The TerminalID of the point of sale the payments are made on (ePay merchant cabinet). It must use the two-step scheme (hold, then charge).',
    },
    {
      name: 'public_key',
      secret: false,
      required: false,
      pattern: '[A-Za-z0-9+/]{200,1400}={0,2}',
      format: 'an RSA public key in base64 (DER), on one line',
      description: "ePay's RSA public key for card cryptograms, only if ePay gave you another one: leave it empty to use the key ePay publishes for this environment.",
      check: (value) => (halykPublicKey(value) ? undefined : HALYK_PUBLIC_KEY_EXPECTED),
    },
  ],
  baseUrl: baseUrlPer(HALYK_BASE_URLS),
  // The API and OAuth hosts of ePay's pages (epayment.kz/en-US/docs) and its SDK (./connector.ts).
  publishedHosts: HALYK_HOSTS,
  // ePay's postLink is unsigned (docs/psp/halyk.md): outcomes are read with `retrieve`.
  takesNotifications: false,
  create(account, context) {
    return new HalykConnector(account, context);
  },
};
