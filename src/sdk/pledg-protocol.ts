/**
 * The messages the Pledg script (./pledg.ts) exchanges with the hosted page beyond those of
 * ./protocol.ts (kept apart: a change to that file's code changes the bytes of the immutable
 * `/sdk/v1/chipin.js`). Pure: bundled into the script, imported by the unit tests.
 *
 * The script opens `/purchase?…`, which creates the purchase: it does not know the purchase's uid
 * in advance, so it binds the uid named by the first message of its own frame (origin and source
 * checked as chipin.js does; every page of Chipin's origin is Chipin's own) and from then on
 * hears only messages naming that uid. chipin.js never sees these types (parseMessage ignores them).
 */
import { parseMessage, PROTOCOL_VERSION, type ChipinError, type ChipinMessage, type ErrorMessage } from './protocol.ts';

const PURCHASE_UID = /^pur_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The checkout page, inside an embedding frame, names its purchase (on every load). */
interface ReadyMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:ready';
  purchase_uid: string;
}

/** Whether the hosted form can be submitted now (externalCheckoutValidation: the merchant's button follows it). */
interface FormStatusMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:form-status';
  purchase_uid: string;
  ready: boolean;
}

/** `/purchase` refused its settings (no purchase exists): said once, before any uid is bound. */
export interface InvalidRequestMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:invalid-request';
  message: string;
}

/** The original provider's error types (and `abandonment`, which its plugins test for), as the hosted page adds them to an error (src/delivery/shop-return.ts). */
const PLEDG_ERROR_TYPES = [
  'invalid_request_error',
  'maintenance',
  'internal_error',
  'payment_refused',
  'bad_gateway',
  '3DS_confirmation_timeout',
  'not_eligible',
  'abandonment',
] as const;
export type PledgErrorType = (typeof PLEDG_ERROR_TYPES)[number];

/** `chipin:error` as the Pledg script reads it: the error's `type` kept when it is one of the original's. */
type PledgErrorMessage = ErrorMessage & { error: ChipinError & { type?: PledgErrorType } };

export type PledgFrameMessage = Exclude<ChipinMessage, ErrorMessage> | PledgErrorMessage | ReadyMessage | FormStatusMessage | InvalidRequestMessage;

/**
 * Script → page, the only direction where the merchant's page speaks: posted to the frame with
 * `targetOrigin` = Chipin's origin; the page acts on it only when it comes from its parent
 * window, from the purchase's merchant origin, with exactly this shape and its own uid
 * (src/pages/assets/result.js). `chipin:external-validation` asks the page to hide its pay button
 * and report `chipin:form-status`; `chipin:validate-checkout` submits the form as the button would.
 */
export interface HostMessage {
  chipin: typeof PROTOCOL_VERSION;
  type: 'chipin:external-validation' | 'chipin:validate-checkout';
  purchase_uid: string;
}

const MESSAGE_MAX = 1_000;

/** A message for the Pledg script if `data` is exactly one, else undefined. */
export function parsePledgMessage(data: unknown): PledgFrameMessage | undefined {
  if (!isRecord(data) || data.chipin !== PROTOCOL_VERSION) return undefined;
  if (data.type === 'chipin:invalid-request') {
    return typeof data.message === 'string' && data.message.length <= MESSAGE_MAX ? { chipin: PROTOCOL_VERSION, type: 'chipin:invalid-request', message: data.message } : undefined;
  }
  const uid = data.purchase_uid;
  if (typeof uid !== 'string' || !PURCHASE_UID.test(uid)) return undefined;
  if (data.type === 'chipin:ready') return { chipin: PROTOCOL_VERSION, type: 'chipin:ready', purchase_uid: uid };
  if (data.type === 'chipin:form-status')
    return typeof data.ready === 'boolean' ? { chipin: PROTOCOL_VERSION, type: 'chipin:form-status', purchase_uid: uid, ready: data.ready } : undefined;
  const message = parseMessage(data);
  if (message?.type !== 'chipin:error') return message;
  const type = isRecord(data.error) ? data.error.type : undefined;
  return (PLEDG_ERROR_TYPES as readonly unknown[]).includes(type) ? { ...message, error: { ...message.error, type: type as PledgErrorType } } : message;
}

/**
 * Whether the Pledg script may act on a `message` event: from Chipin's origin, from its own
 * frame, exactly one of its messages, naming `purchaseUid` once bound (before, any uid: the
 * caller binds it; after, a refusal of the settings can no longer come).
 */
export function acceptPledgMessage(
  event: { origin: string; source: unknown; data: unknown },
  expected: { chipinOrigin: string; frame: unknown; purchaseUid: string | undefined },
): PledgFrameMessage | undefined {
  if (event.origin !== expected.chipinOrigin || event.source === null || event.source !== expected.frame) return undefined;
  const message = parsePledgMessage(event.data);
  if (!message) return undefined;
  if (message.type === 'chipin:invalid-request') return expected.purchaseUid === undefined ? message : undefined;
  return expected.purchaseUid === undefined || message.purchase_uid === expected.purchaseUid ? message : undefined;
}

/**
 * The page's check of a script → page message (src/pages/assets/result.js does the same in plain
 * JavaScript): from its parent window, from the merchant origin it posts to, exactly this shape,
 * its own purchase.
 */
export function acceptHostMessage(
  event: { origin: string; source: unknown; data: unknown },
  expected: { merchantOrigin: string; parent: unknown; purchaseUid: string },
): HostMessage | undefined {
  if (event.origin !== expected.merchantOrigin || event.source === null || event.source !== expected.parent) return undefined;
  const d = event.data;
  if (!isRecord(d) || d.chipin !== PROTOCOL_VERSION || d.purchase_uid !== expected.purchaseUid || Object.keys(d).length !== 3) return undefined;
  return d.type === 'chipin:external-validation' || d.type === 'chipin:validate-checkout'
    ? { chipin: PROTOCOL_VERSION, type: d.type, purchase_uid: expected.purchaseUid }
    : undefined;
}
