import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { MoneticoConnector } from './connector.ts';
import { baseUrlPer, kitOptions, requireCredentials } from '../kit/connector-setup.ts';
import { usableKey } from './mapping.ts';

/**
 * Monetico Paiement's server: its test TPEs answer under `/test/` (paiement.cgi,
 * capture_paiement.cgi and recredit_paiement.cgi alike), so the base URL includes that folder.
 */
const BASE_URLS: Readonly<Record<PspEnvironment, string>> = {
  test: 'https://p.monetico-services.com/test',
  live: 'https://p.monetico-services.com',
};

/**
 * The hosts Monetico's kits and the published SDKs call (dansmaculotte/monetico-php
 * `MAIN_REQUEST_URL` and `MISC_REQUEST_URL`; ekyna/PayumMonetico's endpoints): the payment server
 * and the API host of capture, recredit and the payment state (etatpaiement.cgi), in both
 * environments (the test TPEs under `/test/`).
 */
const HOSTS: Readonly<Record<PspEnvironment, readonly string[]>> = {
  test: ['p.monetico-services.com', 'payment-api.e-i.com'],
  live: ['p.monetico-services.com', 'payment-api.e-i.com'],
};

/** The security key: 40 hexadecimal characters, the last two possibly in the older form the kits still accept (a letter G–Z, then a digit or hex letter; or a final M). */
const KEY_PATTERN = '[0-9A-Fa-f]{38}(?:[0-9A-Fa-f]{2}|[G-Z][0-9A-F]|[0-9A-F]M)';

export const moneticoDefinition: ConnectorDefinition = {
  name: 'monetico',
  label: 'Monetico Paiement (Crédit Mutuel, CIC)',
  authorizationValidity: {
    // Monetico Paiement: not documented here, 7 days assumed; release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    // Merchant-initiated holds: paiement.cgi on the alias with 3dsdebrayable and numero_dossier on a
    // TPE in deferred capture ("paiement différé"), left uncaptured; capture_paiement.cgi after.
    source:
      'Monetico Paiement: not documented here, 7 days assumed; release after cancel: not documented; merchant-initiated hold: a server-to-server payment on the alias (aliascb, 3dsdebrayable, numero_dossier) on a deferred-capture TPE, captured or cancelled by capture_paiement.cgi (docs/psp/monetico.md#sources)',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'tpe',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9]{7}',
      format: '7 letters or digits',
      description:
        'Your TPE number (virtual terminal, "numéro de TPE"): 7 characters, shown in the Monetico back office (Tableau de bord commerçant) beside each terminal, and in the mail that opened your contract.',
    },
    {
      name: 'societe',
      secret: false,
      required: true,
      pattern: '[A-Za-z0-9._-]{1,50}',
      format: '1 to 50 letters, digits, dots, dashes or underscores',
      description: 'Your company code ("code société"): given by Monetico with the TPE; the back office shows it under the terminal’s technical settings. Case matters.',
    },
    {
      name: 'key',
      secret: true,
      required: true,
      pattern: KEY_PATTERN,
      format: '40 hexadecimal characters',
      // The MAC is keyed by its bytes: decoded as the connector will (the older final forms included), 20 of them.
      check: (value) => (usableKey(value).length === 20 ? undefined : 'expected 40 hexadecimal characters (20 bytes)'),
      description:
        'The security key ("clé de sécurité", used for the MAC): 40 hexadecimal characters, downloaded from the back office (Paramétrage › Sécurité › clé) for the test or the production TPE — they differ.',
    },
  ],
  baseUrl: baseUrlPer(BASE_URLS),
  publishedHosts: HOSTS,
  create(account, context) {
    const c = account.credentials;
    requireCredentials('monetico', c, ['tpe', 'societe', 'key']);
    if (usableKey(c.key!).length !== 20) throw new TypeError('monetico: the security key must be 40 hexadecimal characters');
    return new MoneticoConnector({
      ...kitOptions(account, context),
      credentials: { tpe: c.tpe!, societe: c.societe!, key: c.key! },
    });
  },
};
