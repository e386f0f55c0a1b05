import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { baseUrlPer, kitOptions, requireCredentials } from '../kit/connector-setup.ts';
import { BraintreeConnector } from './connector.ts';

/**
 * Braintree (PayPal): the hosts of the SDK's `Environment.Sandbox` and `Environment.Production`
 * (braintree 3.40.0, lib/braintree/environment.js), on 443; the SDK adds /merchants/<id>/….
 */
const BASE_URLS: Readonly<Record<PspEnvironment, string>> = {
  test: 'https://api.sandbox.braintreegateway.com',
  live: 'https://api.braintreegateway.com',
};

export const braintreeDefinition: ConnectorDefinition = {
  name: 'braintree',
  label: 'Braintree (PayPal)',
  authorizationValidity: {
    // Braintree: Visa authorisations expire after 7 days; Mastercard pre-authorisations after 30
    // but final authorisations (recurring) after 7. Which type an unscheduled merchant-initiated
    // sale gets is not said: 7 kept for every brand. Release after void: not documented.
    // Merchant-initiated holds: a sale with transactionSource unscheduled, not submitted for settlement.
    default: 7,
    voidReleaseHours: null,
    source:
      'https://developer.paypal.com/braintree/articles/control-panel/transactions/managing-authorizations (expiry by payment method type); https://www.braintreepayments.com/blog/visa-compliance-updates-new-authorization-expiration-time-frames/ (Visa 7 days); https://www.braintreepayments.com/blog/changes-to-mastercard-authorization-handling/ (Mastercard final authorisation 7 days, pre-authorisation 30); release after void: not documented',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'merchant_id',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9]{1,64}',
      format: 'letters and digits',
      description: 'Control Panel › Settings (gear) › Business › Merchant ID, or API › API Keys, "Merchant ID".',
    },
    {
      name: 'public_key',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9]{1,64}',
      format: 'letters and digits',
      description: 'Control Panel › Settings › API › API Keys › the key’s "Public Key".',
    },
    {
      name: 'private_key',
      secret: true,
      required: true,
      pattern: '[A-Za-z0-9]{1,64}',
      format: 'letters and digits',
      description:
        'Control Panel › Settings › API › API Keys › "View" on the key’s Private Key. It also signs webhooks: point a webhook at the notification URL Chipin shows for this account (Settings › Webhooks).',
    },
  ],
  baseUrl: baseUrlPer(BASE_URLS),
  publishedHosts: { test: ['api.sandbox.braintreegateway.com'], live: ['api.braintreegateway.com'] },
  create(account, context) {
    const c = account.credentials;
    requireCredentials('braintree', c, ['merchant_id', 'public_key', 'private_key']);
    return new BraintreeConnector({
      credentials: { merchantId: c.merchant_id!, publicKey: c.public_key!, privateKey: c.private_key! },
      ...kitOptions(account, context),
    });
  },
};
