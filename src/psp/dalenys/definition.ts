import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { DalenysConnector } from './connector.ts';
import { baseUrlPer, kitOptions, requireCredentials } from '../kit/connector-setup.ts';

/**
 * Dalenys (formerly Be2bill; Payplug group). The API paths (/front/service/rest/process and
 * /export) are under the host's root, so the base URL is the host alone.
 */
const BASE_URLS: Readonly<Record<PspEnvironment, string>> = {
  test: 'https://secure-test.dalenys.com',
  live: 'https://secure-magenta1.dalenys.com',
};

/**
 * The published hosts: Dalenys' PHP SDK (`Dalenys_Api_ClientBuilder`: secure-magenta1 and
 * secure-magenta2.dalenys.com in production; the Be2bill builder: secure-test.be2bill.com and
 * secure-magenta1/2.be2bill.com), the Go client (go-be2bill `client.go`: the same be2bill hosts)
 * and the integrations that call secure-test.dalenys.com in test (docs/psp/dalenys.md).
 */
const HOSTS: Readonly<Record<PspEnvironment, readonly string[]>> = {
  test: ['secure-test.dalenys.com', 'secure-test.be2bill.com'],
  live: ['secure-magenta1.dalenys.com', 'secure-magenta2.dalenys.com', 'secure-magenta1.be2bill.com', 'secure-magenta2.be2bill.com'],
};

export const dalenysDefinition: ConnectorDefinition = {
  name: 'dalenys',
  label: 'Dalenys (Be2bill, Payplug group) server-to-server API',
  authorizationValidity: {
    // Dalenys: an authorisation not captured lapses after 7 days (HOLD_DAYS, src/psp/dalenys/mapping.ts); it has no void: the hold stays until it lapses, not documented
    default: 7,
    voidReleaseHours: null,
    source: 'Dalenys: an authorisation not captured lapses after 7 days (HOLD_DAYS, src/psp/dalenys/mapping.ts); it has no void: the hold stays until it lapses, not documented',
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'identifier',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}',
      format: 'letters, digits, spaces, dots, hyphens or underscores (up to 64), as shown in the Dalenys back office',
      description: 'The IDENTIFIER of your Dalenys account (one per account and currency): Dalenys back office › Configuration › your account, "Identifier". Case matters.',
    },
    {
      name: 'password',
      secret: true,
      required: true,
      pattern: '\\S(?:.*\\S)?',
      format: 'the password without leading or trailing spaces',
      description:
        'The account password that signs every request and notification (HASH): Dalenys back office › Configuration › your account, "Password". Case matters. Also set the notification URL there to the one Chipin shows for this account.',
    },
  ],
  baseUrl: baseUrlPer(BASE_URLS),
  publishedHosts: HOSTS,
  create(account, context) {
    const c = account.credentials;
    requireCredentials('dalenys', c, ['identifier', 'password']);
    return new DalenysConnector({
      ...kitOptions(account, context),
      credentials: { identifier: c.identifier!, password: c.password! },
    });
  },
};
