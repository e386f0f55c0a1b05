import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { kitOptions } from '../kit/connector-setup.ts';
import { StripeConnector } from './connector.ts';

/**
 * Stripe in back mode: the merchant's own Stripe account. Stripe has one API host for test and
 * live; the key decides the mode (docs.stripe.com/keys), so the environment must match the key.
 */
export const stripeDefinition: ConnectorDefinition = {
  name: 'stripe',
  label: 'Stripe',
  authorizationValidity: {
    // docs.stripe.com/payments/place-a-hold-on-a-payment-method: an online card authorisation
    // holds 7 days (extended authorisations, opt-in per card brand, are not used). The release of
    // a cancelled authorisation is the issuer's: Stripe gives no figure.
    default: 7,
    // The same page: since 14 April 2024 a Visa merchant-initiated authorisation (a renewal) holds
    // "5 days", exactly 4 days and 18 hours.
    merchantInitiatedByBrand: { visa: 4.75 },
    voidReleaseHours: null,
    source:
      'https://docs.stripe.com/payments/place-a-hold-on-a-payment-method (7 days, online card payments; Visa merchant-initiated: 4 days 18 hours); release after cancel: not documented',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'secret_key',
      secret: true,
      required: true,
      pattern: 'sk_(test|live)_[0-9A-Za-z]{10,247}',
      format: 'sk_test_… or sk_live_… followed by letters and digits',
      description: 'Dashboard → Developers → API keys → Secret key (sk_test_… in test mode, sk_live_… in live mode).',
    },
    {
      name: 'webhook_secret',
      secret: true,
      required: false,
      afterWebhook: true,
      pattern: 'whsec_[0-9A-Za-z+/=]{16,128}',
      format: 'whsec_… followed by 16 to 128 letters, digits, +, / or =',
      description:
        'Dashboard → Developers → Webhooks → the endpoint pointing at Chipin’s notification URL (shown once the account is saved) → Signing secret (whsec_…). Each endpoint has its own.',
    },
  ],
  validate(credentials: Readonly<Record<string, string>>, environment: PspEnvironment) {
    const key = credentials.secret_key ?? '';
    const expected = environment === 'live' ? 'sk_live_' : 'sk_test_';
    if (!key.startsWith(expected)) return { field: 'secret_key', message: `a ${environment} account needs a ${expected}… key` };
    return undefined;
  },
  baseUrl(): string {
    return 'https://api.stripe.com';
  },
  // docs.stripe.com/api: "https://api.stripe.com", one host for test and live keys.
  publishedHosts: { test: ['api.stripe.com'], live: ['api.stripe.com'] },
  create(account, context) {
    return new StripeConnector({
      secretKey: account.credentials.secret_key ?? '',
      webhookSecret: account.credentials.webhook_secret ?? '',
      ...kitOptions(account, context),
    });
  },
};
