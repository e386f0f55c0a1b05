import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { CHECKOUT_BASE_URLS, CHECKOUT_HOSTS, CheckoutConnector } from './connector.ts';

/**
 * Checkout.com in back mode: the merchant's own Checkout.com account ("NAS" keys). The secret key
 * authenticates every call; the processing channel names where payments are booked. See
 * docs/psp/checkout.md.
 */
export const checkoutDefinition: ConnectorDefinition = {
  name: 'checkout',
  label: 'Checkout.com',
  authorizationValidity: {
    // Checkout.com treats every payment as a final authorisation unless told otherwise; its pages
    // found here give no validity in days (only Mastercard estimated authorisations can be
    // extended): 7 days assumed, the schemes' common window. Release after void: not documented.
    // Merchant-initiated holds: capture false, merchant_initiated, payment_type Unscheduled.
    default: 7,
    voidReleaseHours: null,
    source:
      'https://www.checkout.com/docs/payments/manage-payments/authorize-a-payment (final authorisation by default; no validity in days given there), https://www.checkout.com/docs/payments/manage-payments/authorize-a-payment/adjust-an-estimated-authorization; 7 days assumed; release after void: not documented',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'secret_key',
      secret: true,
      required: true,
      // The SDK's own key patterns (checkout-sdk-node 5.2.1, config.js: NAS_SANDBOX_SECRET_KEY_REGEX, NAS_LIVE_SECRET_KEY_REGEX).
      pattern: 'sk_(sbox_)?[a-z2-7]{26}[a-z2-7*#$=]',
      format: 'sk_sbox_… (sandbox) or sk_… (live) followed by 27 characters',
      description: 'Dashboard → Developers → Keys → the secret key (sk_sbox_… in the sandbox, sk_… in production).',
    },
    {
      name: 'processing_channel_id',
      secret: false,
      required: true,
      pattern: 'pc_[a-z0-9]{26}',
      format: 'pc_ followed by 26 lower-case letters and digits',
      description: 'Dashboard → Settings → Processing channels → the channel’s id (pc_…).',
    },
    {
      name: 'webhook_secret',
      secret: true,
      required: false,
      afterWebhook: true,
      pattern: '[\\x21-\\x7e]{16,128}',
      format: '16 to 128 printable characters',
      description:
        'Dashboard → Developers → Webhooks → the endpoint pointing at Chipin’s notification URL (shown once the account is saved) → its secret key, which signs each event (Cko-Signature).',
    },
  ],
  validate(credentials: Readonly<Record<string, string>>, environment: PspEnvironment) {
    const key = credentials.secret_key ?? '';
    const sandbox = key.startsWith('sk_sbox_');
    if (environment === 'live' && sandbox) return { field: 'secret_key', message: 'a live account needs a production key (sk_…, not sk_sbox_…)' };
    if (environment === 'test' && !sandbox) return { field: 'secret_key', message: 'a test account needs a sandbox key (sk_sbox_…)' };
    return undefined;
  },
  baseUrl: baseUrlPer(CHECKOUT_BASE_URLS),
  // api-reference.checkout.com, "Base URLs".
  publishedHosts: CHECKOUT_HOSTS,
  create(account, context) {
    return new CheckoutConnector(account, context);
  },
};
