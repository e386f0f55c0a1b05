import { Redacted } from '../../domain/redacted.ts';
import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { LyraConnector } from './connector.ts';

/**
 * PayZen's REST API server (Lyra's PHP samples use it). Each brand of the Lyra platform has its
 * own server (Lyra Collect: `https://api.lyra.com`; Systempay, Sogecommerce, … : see the brand's
 * back office, Settings > Shop > REST API keys, "REST API server URL"), the same for test and
 * production: the password's prefix (`testpassword_` / `prodpassword_`) selects the mode. A PSP
 * account's `endpoint_url` picks another brand.
 */
export const LYRA_DEFAULT_BASE_URL = 'https://api.payzen.eu';

/**
 * The REST API servers of the Lyra platform's brands, as Lyra lists them ("REST server API URL",
 * github.com/lyra/flask-embedded-form-examples, .env.example): one per brand, the same for test
 * and production.
 */
const LYRA_HOSTS: readonly string[] = [
  'api.payzen.eu', // PayZen Europe
  'api.lyra.com', // Lyra Collect
  'api.systempay.fr', // Systempay
  'api-sogecommerce.societegenerale.eu', // Sogecommerce
  'api.scelliuspaiement.labanquepostale.fr', // Scellius
  'api-clicandpay.groupecdn.fr', // Clic&Pay by groupe Crédit du Nord
  'api.cobroinmediato.tech', // Cobro Inmediato
  'epaync.nc', // EpayNC
  'api.micuentaweb.pe', // Mi Cuenta Web
  'api.payty.com', // Payty
  'secure.payzen.co.in', // PayZen India
  'api.payzen.lat', // PayZen LATAM
  'api.payzen.com.br', // PayZen Brazil
];

const PASSWORD_PREFIX: Record<PspEnvironment, string> = { test: 'testpassword_', live: 'prodpassword_' };

export const lyraDefinition: ConnectorDefinition = {
  name: 'lyra',
  label: 'Lyra (PayZen, Systempay, Sogecommerce, Lyra Collect)',
  authorizationValidity: {
    // Lyra: 7 days (LYRA_HOLD_DAYS, src/psp/lyra/mapping.ts); release after cancel: not documented.
    // Merchant-initiated holds: Charge/CreatePayment formAction SILENT on the token with
    // transactionOptions.cardOptions.manualValidation YES (documented parameters of that call).
    default: 7,
    voidReleaseHours: null,
    source:
      'Lyra: 7 days (LYRA_HOLD_DAYS, src/psp/lyra/mapping.ts); release after cancel: not documented; merchant-initiated hold: https://docs.lyra.com/en/rest/V4.0/api/playground/Charge/CreatePayment (formAction SILENT, transactionOptions.cardOptions.manualValidation)',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'shop_id',
      secret: false,
      required: true,
      pattern: '[0-9]{8}',
      format: '8 digits',
      description: 'Shop ID (8 digits): Expert Back Office, Settings > Shop > REST API keys, "User".',
    },
    {
      name: 'password',
      secret: true,
      required: true,
      pattern: '(testpassword|prodpassword)_[A-Za-z0-9]{20,100}',
      format: 'testpassword_… or prodpassword_… followed by 20 to 100 letters and digits',
      description:
        'REST API password: Expert Back Office, Settings > Shop > REST API keys, "Test password" (testpassword_…) for the test environment or "Production password" (prodpassword_…) for live. It also signs the IPN.',
    },
    {
      name: 'hmac_key',
      secret: true,
      required: true,
      pattern: '[A-Za-z0-9]{16,128}',
      format: '16 to 128 letters and digits',
      description: 'HMAC-SHA-256 key (test or production, as the password): Expert Back Office, Settings > Shop > REST API keys. It signs the browser return (kr-hash).',
    },
  ],
  validate(credentials, environment) {
    const prefix = PASSWORD_PREFIX[environment];
    if (!(credentials.password ?? '').startsWith(prefix)) {
      return { field: 'password', message: `the ${environment} environment takes the ${environment === 'test' ? 'test' : 'production'} password (${prefix}…)` };
    }
    return undefined;
  },
  baseUrl() {
    return LYRA_DEFAULT_BASE_URL;
  },
  publishedHosts: { test: LYRA_HOSTS, live: LYRA_HOSTS },
  create(account, context) {
    return new LyraConnector({
      accountId: account.id,
      environment: account.environment,
      baseUrl: account.baseUrl,
      shopId: account.credentials.shop_id ?? '',
      password: new Redacted(account.credentials.password ?? ''),
      hmacKey: new Redacted(account.credentials.hmac_key ?? ''),
      clock: context.clock,
      publicUrl: context.publicUrl,
      timeoutMs: context.timeoutMs,
      http: context.http,
      logger: context.logger,
      operations: context.operations,
    });
  },
};
