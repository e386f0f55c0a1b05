import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { MIDTRANS_BASE_URLS, MIDTRANS_HOSTS, MidtransConnector } from './connector.ts';
import { MIDTRANS_CURRENCY, SEN_PER_RUPIAH } from './mapping.ts';

/**
 * Midtrans (Indonesia), Core API on the merchant's own Midtrans account (back mode). The server
 * key authenticates every call (HTTP Basic, the key as user) and signs notifications; the client
 * key registers cards. Sandbox keys start with `SB-`. See docs/psp/midtrans.md.
 */
export const midtransDefinition: ConnectorDefinition = {
  name: 'midtrans',
  label: 'Midtrans',
  authorizationValidity: {
    // Midtrans: a pre-authorisation not captured is released after 7 days by default; release after cancel: not documented
    default: 7,
    voidReleaseHours: null,
    source:
      'Midtrans: "reserved fund will be released after seven days if there is no capture" (docs.midtrans.com/reference/card-feature-pre-authorization); release after cancel: not documented',
    // `POST /v2/charge` with the saved token, no `authentication`, `credit_card.type` `authorize` (docs/psp/midtrans.md).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  // IDR only, in whole rupiah: Chipin counts IDR in sen (ISO 4217: 2 decimals), Midtrans'
  // gross_amount has no decimals (mapping.ts, docs/psp/midtrans.md#amounts-and-currencies-a-decision).
  currencies: { [MIDTRANS_CURRENCY]: SEN_PER_RUPIAH },
  credentialFields: [
    {
      name: 'server_key',
      secret: true,
      required: true,
      pattern: '(SB-)?Mid-server-[A-Za-z0-9_-]{8,64}',
      format: 'SB-Mid-server-… (sandbox) or Mid-server-… (production)',
      description: 'Midtrans dashboard (MAP) → Settings → Access Keys → Server Key. The sandbox and production dashboards have their own.',
    },
    {
      name: 'client_key',
      secret: false,
      required: true,
      pattern: '(SB-)?Mid-client-[A-Za-z0-9_-]{8,64}',
      format: 'SB-Mid-client-… (sandbox) or Mid-client-… (production)',
      description: 'Midtrans dashboard (MAP) → Settings → Access Keys → Client Key.',
    },
  ],
  validate(credentials: Readonly<Record<string, string>>, environment: PspEnvironment) {
    const sandbox = environment === 'test';
    for (const field of ['server_key', 'client_key'] as const) {
      const value = credentials[field] ?? '';
      if (value.startsWith('SB-') !== sandbox) return { field, message: sandbox ? 'a sandbox account needs a key starting with SB-' : 'a production key does not start with SB-' };
    }
    return undefined;
  },
  baseUrl: baseUrlPer(MIDTRANS_BASE_URLS),
  // docs.midtrans.com "Environment" (and the SDK's apiConfig.js): api.sandbox.midtrans.com, api.midtrans.com.
  publishedHosts: MIDTRANS_HOSTS,
  create(account, context) {
    return new MidtransConnector(account, context);
  },
};
