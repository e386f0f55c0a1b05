import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { AdyenConnector } from './connector.ts';

/**
 * Adyen (back mode): the merchant's own Adyen merchant account, over Checkout API v72 (through its official SDK). Base URLs
 * from docs.adyen.com/development-resources/live-endpoints: test `https://checkout-test.adyen.com`,
 * live `https://{PREFIX}-checkout-live.adyenpayments.com/checkout` (the connector appends `/v72/…`).
 */
const LIVE_URL_PREFIX = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const LIVE_HOST_SUFFIX = '-checkout-live';

/**
 * The live Checkout URL a prefix makes, read back as a URL: what was expected when it makes none.
 * The pattern allows any length, but `<prefix>-checkout-live` is one DNS label, at most 63
 * characters (RFC 1035 §2.3.4), which WHATWG URLs do not enforce.
 */
function liveUrlProblem(prefix: string): string | undefined {
  const label = `${prefix}${LIVE_HOST_SUFFIX}`;
  const expected = `expected the prefix of your live API URLs, at most ${63 - LIVE_HOST_SUFFIX.length} characters (it makes the host <prefix>${LIVE_HOST_SUFFIX}.adyenpayments.com)`;
  if (label.length > 63) return expected;
  try {
    return new URL(`https://${label}.adyenpayments.com/checkout`).hostname === `${label.toLowerCase()}.adyenpayments.com` ? undefined : expected;
  } catch {
    return expected;
  }
}

export const adyenDefinition: ConnectorDefinition = {
  name: 'adyen',
  label: 'Adyen',
  authorizationValidity: {
    // docs.adyen.com/online-payments/adjust-authorisation#validity lists validity per scheme;
    // Visa and Mastercard: 7 days as modelled by ADYEN_HOLD_DAYS (src/psp/adyen/connector.ts).
    // Other schemes: not checked here, 7 assumed. Adyen's own expiry (28 days, Cartes Bancaires 12)
    // is longer than the schemes': the schemes' figure rules. Release after cancel: issuer's, not documented.
    // Merchant-initiated holds: ContAuth + UnscheduledCardOnFile with additionalData.manualCapture.
    default: 7,
    byBrand: { visa: 7, mastercard: 7 },
    voidReleaseHours: null,
    source:
      'https://docs.adyen.com/online-payments/adjust-authorisation#validity (per scheme; Visa, Mastercard 7 days); https://www.adyen.help/hc/en-us/articles/115001179684 (Adyen itself expires authorisations after 28 days, Cartes Bancaires 12: the schemes lapse sooner); other schemes and release after cancel: not documented here, 7 days assumed',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'merchant_account',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9][A-Za-z0-9_.-]{0,79}',
      format: 'up to 80 letters, digits, _, . or -',
      description: 'Customer Area → Settings → Merchant accounts: the merchant account code (not the company account).',
    },
    {
      name: 'api_key',
      secret: true,
      required: true,
      // Adyen documents no format beyond "generated key": printable, no spaces (it goes in a header).
      pattern: '[\\x21-\\x7E]{20,1024}',
      format: 'at least 20 characters, no spaces',
      description: 'Customer Area → Developers → API credentials → your ws_… credential → Server settings → API key (Generate API key).',
    },
    {
      name: 'hmac_key',
      secret: true,
      required: false,
      afterWebhook: true,
      pattern: '(?:[0-9A-Fa-f]{2}){16,128}',
      format: '32 to 256 hexadecimal characters (0-9, A-F)',
      // The connector signs with the key's bytes: decoded as it will be, 16 to 128 of them.
      check: (value) => {
        const bytes = Buffer.from(value, 'hex');
        return bytes.length >= 16 && bytes.length <= 128 && bytes.toString('hex') === value.toLowerCase() ? undefined : 'expected 16 to 128 bytes in hexadecimal';
      },
      description:
        'Customer Area → Developers → Webhooks → your Standard webhook, pointing at Chipin’s notification URL (shown once the account is saved) → Security → HMAC key (hexadecimal).',
    },
    {
      name: 'report_api_key',
      secret: true,
      required: false,
      pattern: '[\\x21-\\x7E]{20,1024}',
      format: 'at least 20 characters, no spaces',
      description:
        'Optional; needed for reconciliation from Adyen’s reports. Customer Area → Developers → API credentials → your report service user (report…@Company.…) → API key; its role must let it download merchant reports, and the Payment accounting report must be generated daily (Reports → Payment accounting → automatic).',
    },
    {
      name: 'live_url_prefix',
      secret: false,
      required: true,
      environments: ['live'],
      pattern: LIVE_URL_PREFIX,
      format: 'letters and digits in groups joined by -, e.g. 1797a841fbb37ca7-AdyenDemo',
      check: liveUrlProblem,
      description: 'Live only. Customer Area (live) → Developers → API URLs → Prefix, e.g. 1797a841fbb37ca7-AdyenDemo.',
    },
  ],
  validate(credentials, environment: PspEnvironment) {
    const prefix = credentials.live_url_prefix;
    if (environment === 'live' && !prefix) return { field: 'live_url_prefix', message: 'required for the live environment' };
    if (environment === 'test' && prefix) return { field: 'live_url_prefix', message: 'applies to the live environment only; leave it empty for test' };
    return undefined;
  },
  baseUrl(environment, credentials) {
    if (environment === 'test') return 'https://checkout-test.adyen.com';
    const prefix = credentials.live_url_prefix;
    if (!prefix || !new RegExp(`^${LIVE_URL_PREFIX}$`).test(prefix)) throw new TypeError('adyen: a valid live_url_prefix is required for live');
    return `https://${prefix}-checkout-live.adyenpayments.com/checkout`;
  },
  // docs.adyen.com/development-resources/live-endpoints: Checkout API test host, and the live
  // host built from the company account's prefix (Customer Area → Developers → API URLs).
  // docs.adyen.com/reporting/automatically-get-reports: reports are downloaded from the Customer
  // Area's host, ca-test.adyen.com (live: ca-live.adyen.com), by listTransactions.
  publishedHosts: { test: ['checkout-test.adyen.com', 'ca-test.adyen.com'], live: ['*-checkout-live.adyenpayments.com', 'ca-live.adyen.com'] },
  create(account, context) {
    return new AdyenConnector(account, context);
  },
};
