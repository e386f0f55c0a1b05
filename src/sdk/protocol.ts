/**
 * The message protocol between a hosted Chipin page (inside the SDK's iframe) and `chipin.js`
 * on the merchant's page. Pure (no DOM, no Node): bundled into the SDK and imported by the
 * server and the unit tests, so both ends share one definition.
 *
 * The Pledg script (./pledg.ts) speaks this protocol too, plus the messages of
 * ./pledg-protocol.ts: they live there because any change to this file's code changes the bytes
 * of the immutable `/sdk/v1/chipin.js`, which merchants pin with its SRI hash (comments aside).
 *
 * Direction and trust:
 * - Only the hosted page speaks; chipin.js sends it nothing (the Pledg script sends the two
 *   messages of ./pledg-protocol.ts, which the page checks as strictly). The page posts with `targetOrigin`
 *   set to the purchase's merchant origin (never `*`), so the browser drops the message if the
 *   frame is embedded anywhere else.
 * - The SDK accepts a message only when its `origin` is Chipin's origin (where chipin.js came
 *   from), its `source` is the SDK's own iframe, its shape is exactly one of those below, and it
 *   names the purchase the SDK opened. Anything else is ignored, silently.
 * - Messages carry the result or the error and their JWT; card data never goes through them.
 */

/** Protocol version, in every message: a later SDK can refuse what it does not understand. */
export const PROTOCOL_VERSION = 1;

/** Error codes `onError` receives (a PSP decline reason, or one of the purchase's end states). */
export const ERROR_CODES = [
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'invalid_card',
  'authentication_failed',
  'authorization_expired',
  'amount_too_large',
  'processing_error',
  'payment_failed',
  'purchase_expired',
  'purchase_cancelled',
  'purchase_aborted',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error object `onError` receives, and the `error` claim of its JWT. */
export interface ChipinError {
  code: ErrorCode;
  /** One sentence in English, for the developer (the shopper was told in their language on our page). */
  message: string;
  purchase_uid: string;
  /** True when the shopper may try again on the same purchase (the overlay stays open). */
  retryable: boolean;
}

interface ResultMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:result';
  purchase_uid: string;
  /** The contract's front-end result (`transaction`, `purchase`), as built by src/delivery/front-result.ts. */
  result: Record<string, unknown>;
  /** The result signed (HS256) with the offer's secret; null when the offer has no secret. */
  jwt: string | null;
}

export interface ErrorMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:error';
  purchase_uid: string;
  error: ChipinError;
  /** `{error, purchase, transaction}` signed (HS256) with the offer's secret. */
  jwt: string | null;
}

/** The shopper pressed Escape inside the frame (keys pressed there never reach the merchant's page). */
interface CancelMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:cancel';
  purchase_uid: string;
}

export type ChipinMessage = ResultMessage | ErrorMessage | CancelMessage;

const PURCHASE_UID = /^pur_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isJwt(v: unknown): v is string | null {
  return v === null || (typeof v === 'string' && v.length < 16_384 && JWT.test(v));
}

function isError(v: unknown, uid: string): v is ChipinError {
  return (
    isRecord(v) &&
    typeof v.code === 'string' &&
    (ERROR_CODES as readonly string[]).includes(v.code) &&
    typeof v.message === 'string' &&
    v.purchase_uid === uid &&
    typeof v.retryable === 'boolean'
  );
}

/** The message if `data` is exactly a protocol message, else undefined (foreign or malformed data). */
export function parseMessage(data: unknown): ChipinMessage | undefined {
  if (!isRecord(data) || data.chipin !== PROTOCOL_VERSION) return undefined;
  const uid = data.purchase_uid;
  if (typeof uid !== 'string' || !PURCHASE_UID.test(uid) || (data.type !== 'chipin:cancel' && !isJwt(data.jwt))) return undefined;
  if (data.type === 'chipin:result') {
    const r = data.result;
    if (!isRecord(r) || !isRecord(r.transaction) || !isRecord(r.purchase) || r.purchase.uid !== uid) return undefined;
    return { chipin: PROTOCOL_VERSION, type: 'chipin:result', purchase_uid: uid, result: r, jwt: data.jwt as string | null };
  }
  if (data.type === 'chipin:cancel') return { chipin: PROTOCOL_VERSION, type: 'chipin:cancel', purchase_uid: uid };
  if (data.type === 'chipin:error' && isError(data.error, uid)) {
    const e = data.error;
    return {
      chipin: PROTOCOL_VERSION,
      type: 'chipin:error',
      purchase_uid: uid,
      error: { code: e.code, message: e.message, purchase_uid: uid, retryable: e.retryable },
      jwt: data.jwt as string | null,
    };
  }
  return undefined;
}

/** The origin (`scheme://host[:port]`) of an absolute http(s) URL, else undefined. */
export function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the SDK may act on a `message` event: it comes from Chipin's origin, from the SDK's
 * own frame, and is a protocol message about the purchase the SDK opened.
 */
export function acceptMessage(
  event: { origin: string; source: unknown; data: unknown },
  expected: { chipinOrigin: string; frame: unknown; purchaseUid: string },
): ChipinMessage | undefined {
  if (event.origin !== expected.chipinOrigin || event.source === null || event.source !== expected.frame) return undefined;
  const message = parseMessage(event.data);
  return message && message.purchase_uid === expected.purchaseUid ? message : undefined;
}

/**
 * Where the hosted page may post (its `targetOrigin`) and who may frame it: the purchase's
 * merchant origin (the direct call's, else the callback URL's origin: `callbackUrl` is either),
 * else Chipin's own origin. Never `*`.
 */
export function merchantOrigin(callbackUrl: string | null | undefined, chipinOrigin: string): string {
  return originOf(callbackUrl) ?? chipinOrigin;
}

/**
 * The hosted page's URL for the SDK: `paymentUrl` (checked to be on Chipin's origin) or the
 * purchase uid on Chipin's origin, marked `embed=1` (the page then keeps the shopper inside the
 * frame after paying, and posts the outcome) and with `lang` when asked.
 */
export function frameUrl(
  options: { paymentUrl?: string; purchaseUid?: string; lang?: string },
  chipinOrigin: string,
  mode: 'overlay' | 'redirect',
): { url: string; purchaseUid: string } | undefined {
  let url: URL;
  try {
    url = options.paymentUrl ? new URL(options.paymentUrl, chipinOrigin) : new URL(`/pay/${options.purchaseUid ?? ''}`, chipinOrigin);
  } catch {
    return undefined;
  }
  const m = /^\/pay\/(pur_[0-9a-f-]{36})$/.exec(url.pathname);
  if (url.origin !== chipinOrigin || !m || !PURCHASE_UID.test(m[1]!)) return undefined;
  if (mode === 'overlay') url.searchParams.set('embed', '1');
  if (options.lang && /^[a-z]{2}([_-][A-Z]{2})?$/.test(options.lang)) url.searchParams.set('lang', options.lang);
  return { url: url.toString(), purchaseUid: m[1]! };
}
