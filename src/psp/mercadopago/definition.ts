import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { kitOptions } from '../kit/connector-setup.ts';
import { MercadoPagoConnector } from './connector.ts';

/**
 * Mercado Pago in back mode: the merchant's own application. One API host for test and live
 * (`https://api.mercadopago.com`, the SDK's `AppConfig.BASE_URL`); the access token decides the
 * mode: test credentials are `TEST-…` (or a test user's `APP_USR-…`), production ones `APP_USR-…`.
 */
export const mercadopagoDefinition: ConnectorDefinition = {
  name: 'mercadopago',
  label: 'Mercado Pago',
  authorizationValidity: {
    // Mercado Pago: "The time limit to capture the authorized payment is 7 days from its creation"
    // (its Mexico page; its Peru page says 22: the shorter is kept). Release after cancel: not documented.
    // Merchant-initiated holds: capture false on the saved card.
    default: 7,
    voidReleaseHours: null,
    source:
      'https://mercadopago.com.mx/developers/en/docs/checkout-bricks/additional-content/payment-management/capture-authorized-payment (7 days from creation; https://mercadopago.com.pe/developers/en/docs/checkout-bricks/additional-content/payment-management/capture-authorized-payment says 22: the shorter kept); release after cancel: not documented',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'access_token',
      secret: true,
      required: true,
      pattern: '(TEST|APP_USR)-[0-9A-Za-z-]{16,200}',
      format: 'TEST-… or APP_USR-… followed by digits, letters and hyphens',
      description: 'Your integrations → your application → Test credentials or Production credentials → Access Token (TEST-… or APP_USR-…).',
    },
    {
      name: 'webhook_secret',
      secret: true,
      required: false,
      afterWebhook: true,
      pattern: '[0-9A-Za-z]{16,128}',
      format: '16 to 128 letters or digits',
      description:
        'Your integrations → your application → Webhooks → Configure notifications: the URL Chipin shows once the account is saved, the "Payments" event, then Save: the secret signature shown there.',
    },
  ],
  validate(credentials: Readonly<Record<string, string>>, environment: PspEnvironment) {
    const token = credentials.access_token ?? '';
    if (environment === 'live' && !token.startsWith('APP_USR-')) return { field: 'access_token', message: 'a live account needs a production APP_USR-… access token' };
    return undefined;
  },
  baseUrl(): string {
    return 'https://api.mercadopago.com';
  },
  // The SDK's AppConfig.BASE_URL and the API reference: one host for test and production credentials.
  publishedHosts: { test: ['api.mercadopago.com'], live: ['api.mercadopago.com'] },
  create(account, context) {
    return new MercadoPagoConnector({
      accessToken: account.credentials.access_token ?? '',
      webhookSecret: account.credentials.webhook_secret ?? '',
      ...kitOptions(account, context),
    });
  },
};
