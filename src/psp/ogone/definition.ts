import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { OgoneConnector } from './connector.ts';
import { baseUrlPer, kitOptions, requireCredentials } from '../kit/connector-setup.ts';
import { HASH_ALGORITHMS, type HashAlgorithm } from './mapping.ts';

/**
 * Ogone (Ingenico ePayments, now Worldline) DirectLink. Its DirectLink pages live under
 * `/ncol/test/` in the test environment and `/ncol/prod/` in production (DirectLink guide,
 * "Request URL"), so the base URL includes that folder.
 */
const BASE_URLS: Readonly<Record<PspEnvironment, string>> = {
  test: 'https://ogone.test.v-psp.com/ncol/test',
  live: 'https://secure.ogone.com/ncol/prod',
};

/**
 * The DirectLink hosts (DirectLink guide, "Request URL"; the same in Odoo's payment_ogone): the
 * test platform, which older guides placed on secure.ogone.com under /ncol/test, and production.
 */
const HOSTS: Readonly<Record<PspEnvironment, readonly string[]>> = {
  test: ['ogone.test.v-psp.com', 'secure.ogone.com'],
  live: ['secure.ogone.com'],
};

function isHashAlgorithm(value: string | undefined): value is HashAlgorithm {
  return (HASH_ALGORITHMS as readonly (string | undefined)[]).includes(value);
}

export const ogoneDefinition: ConnectorDefinition = {
  name: 'ogone',
  label: 'Ogone (Ingenico ePayments) DirectLink',
  authorizationValidity: {
    // Ogone DirectLink: 7 days from the authorisation day (HOLD_DAYS, src/psp/ogone/mapping.ts); release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    // Merchant-initiated holds: orderdirect.asp OPERATION RES on the Alias with ECI 9 and
    // COF_INITIATOR MIT, COF_TRANSACTION SUBSEQ, COF_SCHEDULE UNSCHED (the DirectLink guide's new
    // order request and its stored-credentials section).
    source:
      'Ogone DirectLink: 7 days from the authorisation day (HOLD_DAYS, src/psp/ogone/mapping.ts); release after cancel: not documented; merchant-initiated hold: https://support.legacy.worldline-solutions.com/en/integration-solutions/integrations/directlink (OPERATION RES, COF_INITIATOR MIT)',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'pspid',
      secret: false,
      required: true,
      description: 'Your PSPID: the account name you log in to the Ogone back office with (shown at the top of every page).',
    },
    {
      name: 'user_id',
      secret: false,
      required: true,
      description: 'The USERID of an API user: Configuration › Users › New user, with "Special user for API (no access to admin.)" ticked.',
    },
    {
      name: 'password',
      secret: true,
      required: true,
      description: 'The password of that API user (PSWD).',
    },
    {
      name: 'sha_in',
      secret: true,
      required: true,
      description: 'The SHA-IN pass phrase: Configuration › Technical information › Data and origin verification › "Checks for DirectLink". Must not contain "[".',
    },
    {
      name: 'sha_out',
      secret: true,
      required: true,
      description: 'The SHA-OUT pass phrase: Configuration › Technical information › Transaction feedback › "All transaction submission modes". Must not contain "[".',
    },
    {
      name: 'hash_algorithm',
      secret: false,
      required: true,
      enum: HASH_ALGORITHMS,
      description: 'The hash algorithm chosen under Configuration › Technical information › Global security parameters (SHA-1, SHA-256 or SHA-512).',
    },
  ],
  validate(credentials) {
    for (const field of ['sha_in', 'sha_out'] as const) {
      // Ogone refuses a "[" in a passphrase (it delimits its own parameter syntax).
      if ((credentials[field] ?? '').includes('[')) return { field, message: 'The passphrase must not contain "[".' };
    }
    if (!isHashAlgorithm(credentials.hash_algorithm)) {
      return { field: 'hash_algorithm', message: 'The hash algorithm must be sha1, sha256 or sha512.' };
    }
    return undefined;
  },
  baseUrl: baseUrlPer(BASE_URLS),
  publishedHosts: HOSTS,
  create(account, context) {
    const c = account.credentials;
    const algorithm = c.hash_algorithm;
    if (!isHashAlgorithm(algorithm)) throw new TypeError('ogone: hash_algorithm must be sha1, sha256 or sha512');
    requireCredentials('ogone', c, ['pspid', 'user_id', 'password', 'sha_in', 'sha_out']);
    return new OgoneConnector({
      ...kitOptions(account, context),
      credentials: { pspid: c.pspid!, userId: c.user_id!, password: c.password!, shaIn: c.sha_in!, shaOut: c.sha_out!, algorithm },
    });
  },
};
