import type { ConnectorDefinition } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { HIPAY_GATEWAYS, HIPAY_HOSTS, HipayConnector } from './connector.ts';

/**
 * HiPay Enterprise, on the merchant's own HiPay account (back mode). The three credentials are
 * the ones HiPay's back office shows under Integration → Security settings: the API login and
 * password ("Api credentials", used in HTTP Basic) and the secret passphrase that signs
 * notifications. See docs/psp/hipay.md.
 */
export const hipayDefinition: ConnectorDefinition = {
  name: 'hipay',
  label: 'HiPay Enterprise',
  authorizationValidity: {
    // HiPay Enterprise: not documented here, 7 days assumed; release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    source: 'HiPay Enterprise: not documented here, 7 days assumed; release after cancel: not documented',
    // `POST /rest/v1/order` with `operation` `Authorization`, `eci` 9, `previous_auth_info` (docs/psp/hipay.md).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'username',
      secret: false,
      required: true,
      // HiPay generates API logins: letters, digits, dots, dashes and underscores.
      pattern: '[A-Za-z0-9._-]{4,128}',
      format: '4 to 128 letters, digits, ., _ or -',
      description: 'The API login: HiPay back office → Integration → Security settings → Api credentials ("Username"). Use private credentials, not the public ones of the JS SDK.',
    },
    {
      name: 'password',
      secret: true,
      required: true,
      pattern: '\\S{4,256}',
      format: '4 to 256 characters, no spaces',
      description: 'The API password shown with the API login (Integration → Security settings → Api credentials → "Password").',
    },
    {
      name: 'secret_passphrase',
      secret: true,
      required: true,
      pattern: '.{8,256}',
      format: '8 to 256 characters',
      description:
        'The secret passphrase: Integration → Security settings → Secret passphrase. HiPay signs every notification with it (header X-ALLOPASS-SIGNATURE, SHA-1, SHA-256 or SHA-512 as chosen there).',
    },
  ],
  baseUrl: baseUrlPer(HIPAY_GATEWAYS),
  // The gateway, vault and consultation hosts of HiPay's SDK configuration (./connector.ts).
  publishedHosts: HIPAY_HOSTS,
  create(account, context) {
    return new HipayConnector(account, context);
  },
};
