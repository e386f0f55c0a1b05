import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { PayboxConnector } from './connector.ts';
import { baseUrlPer, kitOptions, requireCredentials } from '../kit/connector-setup.ts';
import { PAYBOX_PUBLIC_KEY_EXPECTED, payboxPublicKey } from './notifications.ts';

/**
 * PayBox (Verifone e-commerce) Paybox Direct / Direct Plus, also sold by Crédit Agricole as
 * e-Transactions. PPPS.php sits at the root of its hosts; the 3-D Secure RemoteMPI
 * (cgi/RemoteMPI.cgi) on the "tpeweb" hosts of the same environment.
 */
const BASE_URLS: Readonly<Record<PspEnvironment, string>> = {
  test: 'https://preprod-ppps.paybox.com',
  live: 'https://ppps.paybox.com',
};

/**
 * The PPPS hosts: preprod-ppps.paybox.com (pre-production), ppps.paybox.com and its backup
 * ppps1.paybox.com (production) — Paybox Direct manual, "URL d'appel", and the published clients
 * (osimatic PayBox, nexylan/paybox-direct, activemerchant paybox_direct). The e-Transactions
 * brand answers the same API on its own hosts (e-Transactions' Paybox Direct manual). Each
 * environment's "tpeweb" host serves the RemoteMPI the shopper's browser posts to.
 */
const HOSTS: Readonly<Record<PspEnvironment, readonly string[]>> = {
  test: ['preprod-ppps.paybox.com', 'preprod-ppps.e-transactions.fr', 'recette-ppps.e-transactions.fr'],
  live: ['ppps.paybox.com', 'ppps1.paybox.com', 'ppps.e-transactions.fr', 'ppps1.e-transactions.fr'],
};

const MPI_HOSTS: Readonly<Record<string, string>> = {
  'preprod-ppps.paybox.com': 'preprod-tpeweb.paybox.com',
  'ppps.paybox.com': 'tpeweb.paybox.com',
  'ppps1.paybox.com': 'tpeweb1.paybox.com',
  'preprod-ppps.e-transactions.fr': 'preprod-tpeweb.e-transactions.fr',
  'ppps.e-transactions.fr': 'tpeweb.e-transactions.fr',
  'ppps1.e-transactions.fr': 'tpeweb1.e-transactions.fr',
};

/** Where the shopper's browser posts the RemoteMPI form: the PPPS host's "tpeweb" sibling, else (a local fake) the same origin. */
export function mpiUrlFor(baseUrl: string): string {
  const url = new URL(baseUrl);
  const host = MPI_HOSTS[url.hostname];
  return `${url.protocol}//${host ?? url.host}/cgi/RemoteMPI.cgi`;
}

export const payboxDefinition: ConnectorDefinition = {
  name: 'paybox',
  label: 'PayBox by Verifone / e-Transactions (Crédit Agricole): Paybox Direct Plus',
  authorizationValidity: {
    // Paybox Direct Plus: not documented here, 7 days assumed; release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    // Merchant-initiated holds: TYPE 00051 (subscriber authorisation only) with ACTIVITE 027 on
    // the subscriber, captured by 00052 and cancelled by 00055 (the Direct Plus manual's questions).
    source:
      'Paybox Direct Plus: not documented here, 7 days assumed; release after cancel: not documented; merchant-initiated hold: the Paybox Direct / Direct Plus integration manual (TYPE 00051, ACTIVITE 027; docs/psp/paybox.md#sources)',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'site',
      secret: false,
      required: true,
      pattern: '[0-9]{7}',
      format: '7 digits',
      description: 'Your site number (7 digits): in the "Paramètres de compte" e-mail Paybox sent when the account was opened, and at the top of the Paybox back office.',
    },
    {
      name: 'rank',
      secret: false,
      required: true,
      pattern: '[0-9]{2,3}',
      format: '2 or 3 digits',
      description: 'Your rank number (rang, 2 or 3 digits, e.g. 01 or 001): in the same "Paramètres de compte" e-mail, beside the site number.',
    },
    {
      name: 'identifier',
      secret: false,
      required: true,
      pattern: '[0-9]{1,9}',
      format: '1 to 9 digits',
      description: 'Your Paybox identifier (identifiant, 1 to 9 digits): in the "Paramètres de compte" e-mail. 3-D Secure (RemoteMPI) names your shop with it.',
    },
    {
      name: 'cle',
      secret: true,
      required: true,
      pattern: '[\\x21-\\x7e]{8,10}',
      format: '8 to 10 characters, no space',
      description:
        'The Paybox Direct key (CLE): the back-office password of the Direct access Paybox sends for server-to-server calls (10 characters since 2013). Not the HMAC key of Paybox System. The Paybox Direct Plus option must be active on the contract.',
    },
    {
      // Required: without it no 3-D Secure return can be trusted (docs/psp/paybox.md#3-d-secure-remotempi).
      name: 'public_key',
      secret: false,
      required: true,
      pattern: '(-----BEGIN PUBLIC KEY-----)?[A-Za-z0-9+/= ]{100,1500}(-----END PUBLIC KEY-----)?',
      format: 'the PEM of pubkey.pem on one line, or its base64',
      description:
        "Paybox's public key, with which Chipin checks the signature of the 3-D Secure (RemoteMPI) return: the file pubkey.pem of Paybox's integrator documentation (the same for e-Transactions), pasted whole (its line breaks are dropped) or only the base64 between its BEGIN and END lines.",
      check: (value) => (payboxPublicKey(value) ? undefined : PAYBOX_PUBLIC_KEY_EXPECTED),
    },
  ],
  baseUrl: baseUrlPer(BASE_URLS),
  publishedHosts: HOSTS,
  create(account, context) {
    const c = account.credentials;
    requireCredentials('paybox', c, ['site', 'rank', 'identifier', 'cle']);
    return new PayboxConnector({
      ...kitOptions(account, context),
      // public_key is required for new accounts; an account saved before the field existed has none, and its 3-D Secure returns are refused until it is added (docs/psp/paybox.md).
      credentials: { site: c.site!, rank: c.rank!, identifier: c.identifier!, cle: c.cle!, ...(c.public_key ? { publicKey: c.public_key } : {}) },
      mpiUrl: mpiUrlFor(account.baseUrl),
      accountId: account.id,
      publicUrl: context.publicUrl,
    });
  },
};
