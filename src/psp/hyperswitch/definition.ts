import type { ConnectorDefinition, PspEnvironment } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { HYPERSWITCH_BASE_URLS, HYPERSWITCH_HOSTS, HyperswitchConnector } from './connector.ts';

/**
 * Hyperswitch in back mode: the merchant's own Hyperswitch merchant account, hosted by Juspay or
 * self-hosted (its address is the PSP account's `endpoint_url`), and the processor the merchant
 * routes the profile's payments to there. See docs/psp/hyperswitch.md.
 */
export const hyperswitchDefinition: ConnectorDefinition = {
  name: 'hyperswitch',
  label: 'Hyperswitch',
  authorizationValidity: {
    // Hyperswitch: the processor it routes to decides; Hyperswitch documents no figure of its own,
    // 7 days assumed (the schemes' common window). Release after void: not documented.
    // Merchant-initiated holds: off_session true, capture_method manual, recurring_details.
    default: 7,
    voidReleaseHours: null,
    source: 'Hyperswitch: the underlying processor decides; no figure in its documentation (https://docs.hyperswitch.io), 7 days assumed; release after void: not documented',
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'api_key',
      secret: true,
      required: true,
      pattern: '[A-Za-z0-9_]{16,128}',
      format: 'snd_… (sandbox) or prd_… (production), letters, digits and underscores',
      description: 'Hyperswitch control centre → Developers → API Keys → a new key of the merchant account (shown once).',
    },
    {
      name: 'profile_id',
      secret: false,
      required: true,
      pattern: 'pro_[A-Za-z0-9]{1,60}',
      format: 'pro_ followed by letters and digits',
      description:
        'Hyperswitch control centre → Developers → Payment settings → the business profile whose processor (connector) and routing take Chipin’s payments: its Profile ID (pro_…).',
    },
    {
      name: 'payment_response_hash_key',
      secret: true,
      required: false,
      // Paired with the webhook URL, set once Chipin's notification URL exists: the account page
      // then says it is missing, as the connector refuses every notification until it is added.
      afterWebhook: true,
      pattern: '[\\x21-\\x7e]{16,256}',
      format: '16 to 256 printable characters',
      description:
        'Hyperswitch control centre → Developers → Payment settings → the same profile → Payment response hash key, which signs each webhook (X-Webhook-Signature-512); set the profile’s webhook URL to Chipin’s notification URL (shown once the account is saved).',
    },
  ],
  validate(credentials: Readonly<Record<string, string>>, environment: PspEnvironment) {
    const key = credentials.api_key ?? '';
    // Hyperswitch prefixes its keys with the environment that made them (snd_, prd_, dev_).
    if (environment === 'live' && /^(snd|dev)_/.test(key)) return { field: 'api_key', message: 'a live account needs a production key (not snd_… or dev_…)' };
    if (environment === 'test' && key.startsWith('prd_')) return { field: 'api_key', message: 'a test account needs a sandbox key (not prd_…)' };
    return undefined;
  },
  baseUrl: baseUrlPer(HYPERSWITCH_BASE_URLS),
  // The OpenAPI document's `servers` (sandbox) and hyperswitch.io's production API; a self-hosted
  // Hyperswitch is another host, which the operator allows with PSP_ENDPOINT_ALLOWLIST.
  publishedHosts: HYPERSWITCH_HOSTS,
  create(account, context) {
    return new HyperswitchConnector(account, context);
  },
};
