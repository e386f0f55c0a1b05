import type { ConnectorDefinition } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { CENTRALPAY_BASE_URLS, CENTRALPAY_HOSTS, CentralpayConnector } from './connector.ts';

/**
 * CentralPay (French payment institution), on the merchant's own CentralPay account (back mode).
 * The API login and its API key authenticate every call (HTTP Basic); the point of sale names
 * where the transactions are booked. See docs/psp/centralpay.md.
 */
export const centralpayDefinition: ConnectorDefinition = {
  name: 'centralpay',
  label: 'CentralPay',
  authorizationValidity: {
    // CentralPay: 7 days to capture (CENTRALPAY_HOLD_DAYS, src/psp/centralpay/mapping.ts); release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    source: 'CentralPay: 7 days to capture (CENTRALPAY_HOLD_DAYS, src/psp/centralpay/mapping.ts); release after cancel: not documented',
    // `POST /transaction` with `source=RECURRING` and `capture=false` (docs/psp/centralpay.md).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'login',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9._@-]{3,64}',
      format: '3 to 64 letters, digits, ., _, @ or -',
      description: 'The API login: CentralPay back office → Administration → API access ("Login"). The test and production back offices have their own.',
    },
    {
      name: 'api_key',
      secret: true,
      required: true,
      pattern: '[A-Za-z0-9]{8,128}',
      format: '8 to 128 letters and digits',
      description: 'The API key shown with the API login (Administration → API access). Test and production keys differ.',
    },
    {
      name: 'point_of_sale_id',
      secret: false,
      required: true,
      // CentralPay's ids are lower-case UUIDs, as its answers print them.
      pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
      format: 'a UUID in lower case (8-4-4-4-12 hexadecimal digits)',
      description: 'The id of the point of sale the payments are booked on: back office → Points of sale → the point of sale ("pointOfSaleId").',
    },
  ],
  baseUrl: baseUrlPer(CENTRALPAY_BASE_URLS),
  // The API hosts of CentralPay's getting-started pages and published integrations (./connector.ts).
  publishedHosts: CENTRALPAY_HOSTS,
  // CentralPay publishes no signature scheme for its webhooks (docs/psp/centralpay.md): outcomes are read with `retrieve`.
  takesNotifications: false,
  create(account, context) {
    return new CentralpayConnector(account, context);
  },
};
