import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Sql } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { DEFAULT_TRIGGERS, isTriggerName, type TriggerName } from './triggers.ts';
import { upsertWebhookEndpoint } from './webhook-endpoint-repository.ts';
import { isInternalAddress, normalizeHost, type AddressPolicy } from '../outbound/addresses.ts';

/** What setting the endpoint answers, and what the dashboard user may read back. */
export interface WebhookSettings {
  url: string;
  token: string;
  secret: string;
  events: TriggerName[];
  /** Until when the secret a rotation replaced still signs beside `secret` (null: only `secret` signs). */
  previousSecretUntil: Date | null;
}

/** What setting the endpoint did: `issued` when it made the token and secret it answers (a new endpoint, or a rotation). */
export interface WebhookSetResult extends WebhookSettings {
  issued: boolean;
}

/**
 * How long the secret a rotation replaced keeps signing beside the new one: a day for the merchant
 * to deploy the new secret without a webhook its receiver refuses (docs/webhooks.md#rotating-the-secret).
 */
const SECRET_OVERLAP_MS = 24 * 60 * 60_000;

/** Until when the replaced secret still signs, as of `now`: null once its overlap is over (or there is none). */
export function stillSigningUntil(until: Date | null, now: Date): Date | null {
  return until && until > now ? until : null;
}

const MAX_URL_LENGTH = 2048;

/** Which rule a webhook setting broke, for a page to say in its language (`webhookRefusal` in src/http/backoffice/texts.ts). */
export type WebhookRule =
  | { code: 'too_long'; max: number }
  | { code: 'not_absolute' }
  | { code: 'not_http' }
  | { code: 'has_credentials' }
  | { code: 'not_https' }
  | { code: 'internal_address'; host: string }
  | { code: 'localhost' }
  | { code: 'unknown_event'; name: string }
  | { code: 'no_event' };

/** The URL or event list cannot be used; the message (English, the API's) names the field and is fit to show. */
export class WebhookSettingsError extends Error {
  constructor(
    readonly field: 'url' | 'events',
    readonly rule: WebhookRule,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a webhook URL before it is stored: http(s), no credentials in it, and in production
 * https and no internal IP literal unless the host is in WEBHOOK_ALLOWED_HOSTS. Names are
 * checked again at every send, against what they resolve to then. The external scoring hook's
 * URL follows the same rule (src/use-cases/risk/risk-scoring-hook.ts).
 */
export function checkWebhookUrl(raw: string, policy: AddressPolicy): string {
  if (raw.length > MAX_URL_LENGTH) throw new WebhookSettingsError('url', { code: 'too_long', max: MAX_URL_LENGTH }, `field url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookSettingsError('url', { code: 'not_absolute' }, 'field url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookSettingsError('url', { code: 'not_http' }, 'field url must be an http(s) URL');
  if (url.username || url.password) throw new WebhookSettingsError('url', { code: 'has_credentials' }, 'field url must not carry a user name or password');
  const host = normalizeHost(url.hostname);
  if (!policy.allowsInternal(host)) {
    if (url.protocol !== 'https:') throw new WebhookSettingsError('url', { code: 'not_https' }, 'field url must be an https:// URL in production');
    if (isIP(host) && isInternalAddress(host))
      throw new WebhookSettingsError('url', { code: 'internal_address', host }, `field url must not point to an internal address (${host})`);
    if (host === 'localhost' || host.endsWith('.localhost')) throw new WebhookSettingsError('url', { code: 'localhost' }, 'field url must not point to localhost');
  }
  return raw;
}

/** The chosen triggers, deduplicated in the canonical order; the contract's three by default. */
function checkEvents(events: readonly string[] | undefined): TriggerName[] {
  if (events === undefined) return [...DEFAULT_TRIGGERS];
  const unknown = events.find((e) => !isTriggerName(e));
  if (unknown !== undefined) throw new WebhookSettingsError('events', { code: 'unknown_event', name: unknown }, `field events has an unknown trigger name "${unknown}"`);
  if (events.length === 0) throw new WebhookSettingsError('events', { code: 'no_event' }, 'field events must name at least one trigger');
  return [...new Set(events as TriggerName[])];
}

/** 256 random bits: the `token` every payload carries, which the merchant compares. */
function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
function generateSigningSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/**
 * Sets the account's endpoint (its URL and events, re-enabling it). A new endpoint gets a new token
 * and signing secret; an existing one keeps its own, so the merchant's checks go on working,
 * unless `rotate` asks for new ones: then the previous secret still signs beside the new one for
 * {@link SECRET_OVERLAP_MS}, and the token changes at once (a payload carries one). Pending
 * deliveries go to the URL set, with the token and signatures current when each is sent.
 */
export async function setWebhookEndpoint(
  sql: Sql,
  box: SecretBox,
  accountId: string,
  input: { url: string; events?: readonly string[]; rotate?: boolean },
  now: Date,
  policy: AddressPolicy,
): Promise<WebhookSetResult> {
  const url = checkWebhookUrl(input.url, policy);
  const events = checkEvents(input.events);
  const token = generateToken();
  const secret = generateSigningSecret();
  const sealed = box.seal(secret);
  const stored = await upsertWebhookEndpoint(
    sql,
    { accountId, url, events, tokenEnc: box.seal(token), secretEnc: sealed, rotateUntil: input.rotate ? new Date(now.getTime() + SECRET_OVERLAP_MS) : null },
    now,
  );
  // A sealed value never repeats (a random nonce each time): ours came back only if it was stored.
  const issued = stored.secretEnc === sealed;
  return {
    url,
    token: issued ? token : box.open(stored.tokenEnc).reveal(),
    secret: issued ? secret : box.open(stored.secretEnc).reveal(),
    events,
    previousSecretUntil: stillSigningUntil(stored.previousSecretUntil, now),
    issued,
  };
}
