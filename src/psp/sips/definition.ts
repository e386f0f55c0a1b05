import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { SipsConnector } from './connector.ts';
import { kitOptions, requireCredentials } from '../kit/connector-setup.ts';

/** The banks' brands of Worldline Sips 2.0, and Worldline's own: one platform, one API, a host each. */
export const SIPS_BRANDS = ['worldline', 'mercanet', 'sogenactif', 'sherlocks'] as const;
type SipsBrand = (typeof SIPS_BRANDS)[number];

function isBrand(value: string | undefined): value is SipsBrand {
  return (SIPS_BRANDS as readonly (string | undefined)[]).includes(value);
}

/**
 * The Office server of each brand per environment.
 * - Worldline: the data dictionary's PROD and TEST endpoints of every Office service
 *   (docs.sips.worldline-solutions.com/en/data-dictionary/office/…).
 * - Mercanet (BNP Paribas): `office-server.mercanet.bnpparibas.net` and
 *   `office-server-mercanet.test.sips-services.com`, as BNP Paribas' Mercanet modules configure them.
 * - Sogenactif (Société Générale) and Sherlock's (LCL): their test servers
 *   `office-server-<brand>.test.sips-services.com` as published with the brands' Sips 2.0 test
 *   shops; we found no public source naming their production Office host, so production uses
 *   Worldline's own Office server, which Worldline documents for every Sips 2.0 merchant. A bank
 *   that gives another host: the PSP account's endpoint_url (on the operator's allowlist).
 */
const BASE_URLS: Readonly<Record<SipsBrand, Readonly<Record<PspEnvironment, string>>>> = {
  worldline: { test: 'https://office-server.test.sips-services.com', live: 'https://office-server.sips-services.com' },
  mercanet: { test: 'https://office-server-mercanet.test.sips-services.com', live: 'https://office-server.mercanet.bnpparibas.net' },
  sogenactif: { test: 'https://office-server-sogenactif.test.sips-services.com', live: 'https://office-server.sips-services.com' },
  sherlocks: { test: 'https://office-server-sherlocks.test.sips-services.com', live: 'https://office-server.sips-services.com' },
};

const HOSTS: Readonly<Record<PspEnvironment, readonly string[]>> = {
  test: [...new Set(Object.values(BASE_URLS).map((u) => new URL(u.test).hostname))],
  live: [...new Set(Object.values(BASE_URLS).map((u) => new URL(u.live).hostname))],
};

export const sipsDefinition: ConnectorDefinition = {
  name: 'sips',
  label: 'Worldline Sips 2.0 Office (Mercanet BNP Paribas, Sogenactif Société Générale, Sherlock’s LCL)',
  authorizationValidity: {
    // Worldline Sips: captureDay at most 6, the hold lapses on the 7th day (src/psp/sips/connector.ts); release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    source: 'Worldline Sips: captureDay at most 6, the hold lapses on the 7th day (src/psp/sips/connector.ts); release after cancel: not documented',
    // `cashManagement/duplicate` of the stored-credential CIT with `captureMode` VALIDATION (docs/psp/sips.md).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'brand',
      secret: false,
      required: true,
      enum: SIPS_BRANDS,
      description:
        'Your bank’s Sips offer: mercanet (BNP Paribas), sogenactif (Société Générale), sherlocks (LCL), or worldline (a contract with Worldline itself). It chooses the server Chipin calls.',
    },
    {
      name: 'merchant_id',
      secret: false,
      required: true,
      pattern: '[0-9]{15}',
      format: '15 digits',
      description: 'Your shop’s merchantId: the 15-digit number your bank’s welcome e-mail gives, also shown at the top of the Sips merchant extranet.',
    },
    {
      name: 'secret_key',
      secret: true,
      required: true,
      pattern: '[\\x21-\\x7e]{1,128}',
      format: 'printable characters without spaces',
      description: 'The secret key of your shop: Sips merchant extranet › Secret keys (download it from there; your bank never sends it by e-mail).',
    },
    {
      name: 'key_version',
      secret: false,
      required: true,
      pattern: '[0-9]{1,10}',
      format: 'a number',
      description: 'The version of that secret key, shown next to it in the merchant extranet (1 for the first key).',
    },
  ],
  validate(credentials) {
    if (!isBrand(credentials.brand)) return { field: 'brand', message: `The brand must be one of ${SIPS_BRANDS.join(', ')}.` };
    return undefined;
  },
  baseUrl(environment, credentials) {
    const brand = credentials.brand;
    return BASE_URLS[isBrand(brand) ? brand : 'worldline'][environment];
  },
  publishedHosts: HOSTS,
  // Sips Office sends none (docs/psp/sips.md): outcomes are read with `retrieve`.
  takesNotifications: false,
  create(account, context) {
    const c = account.credentials;
    requireCredentials('sips', c, ['merchant_id', 'secret_key', 'key_version']);
    return new SipsConnector({
      ...kitOptions(account, context),
      credentials: { merchantId: c.merchant_id!, secretKey: c.secret_key!, keyVersion: c.key_version! },
    });
  },
};
