/**
 * The settings of `new Pledg(button, settings)` (the original provider's plugin.min.js, served
 * by Chipin as the Pledg script: docs/front-end.md#the-pledg-script-plugins-of-the-original-provider):
 * what the script checks before opening anything, the query it opens `/purchase` with, and the
 * error types its `onError` receives. Pure: bundled into the script, and unit-tested in Node.
 */
import { pluginAmountMessage, readPluginAmountCents } from '../domain/plugin-amount.ts';
import type { PledgErrorType } from './pledg-protocol.ts';

/** The error object of the original plugin's `onError`: one of its documented types and a sentence. */
export interface PledgError {
  type: PledgErrorType;
  message: string;
}

/** Settings the script acts on itself; never sent to Chipin (callbacks, the container, the frame's chrome). */
const SCRIPT_ONLY = new Set([
  'containerElement',
  'showCloseButton',
  'externalCheckoutValidation',
  'validateCheckout',
  'onSuccess',
  'onError',
  'onOpen',
  'onClose',
  'onCancel',
  'onCheckoutFormStatusChange',
  'signature',
]);

const CALLBACKS = ['onSuccess', 'onError', 'onOpen', 'onClose', 'onCancel', 'onCheckoutFormStatusChange'];

/** Settings sent as a JSON string (the shared `/purchase` reading: nested objects as JSON). */
const OBJECTS = new Set(['address', 'shippingAddress', 'shipping_address', 'metadata']);

const MERCHANT_UID = /^mer_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
// Deliberately loose: the server decides; this only catches what cannot be an address at all.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const invalid = (name: string) => `The provided property ${name} is invalid`;
const given = (v: unknown) => v !== undefined && v !== null;

/**
 * Why the settings cannot open a payment (the sentence `onError` gets with
 * `invalid_request_error`), or undefined. With `signature` only its shape is checked: the signed
 * settings are Chipin's to read. Without it: `merchantUid` and `amountCents` are required
 * (`amountCents` read as the plugins send it: docs/migrating.md#amounts); `email` is checked when
 * not empty (the provider's own example leaves it to a field the shopper fills in later); the
 * rest must be scalars, the addresses and `metadata` objects (or their JSON), callbacks functions.
 */
export function settingsProblem(settings: unknown): string | undefined {
  if (!isRecord(settings)) return 'The settings must be an object';
  for (const name of CALLBACKS) if (given(settings[name]) && typeof settings[name] !== 'function') return invalid(name);
  for (const name of ['showCloseButton', 'externalCheckoutValidation']) if (given(settings[name]) && typeof settings[name] !== 'boolean') return invalid(name);
  if (given(settings.signature))
    return typeof settings.signature === 'string' && settings.signature.length < 16_384 && JWT.test(settings.signature) ? undefined : invalid('signature');
  if (typeof settings.merchantUid !== 'string' || !MERCHANT_UID.test(settings.merchantUid))
    return given(settings.merchantUid) ? invalid('merchantUid') : 'The property merchantUid is missing';
  if (!given(settings.amountCents)) return 'The property amountCents is missing';
  const amount = readPluginAmountCents(settings.amountCents);
  if (!amount.ok) return pluginAmountMessage('amountCents', amount.reason);
  if (amount.cents === 0) return 'amountCents must be greater than 0';
  if (given(settings.email) && settings.email !== '' && (typeof settings.email !== 'string' || !EMAIL.test(settings.email.trim()))) return invalid('email');
  if (given(settings.currency) && (typeof settings.currency !== 'string' || !/^[A-Za-z]{3}$/.test(settings.currency))) return invalid('currency');
  for (const [name, value] of Object.entries(settings)) {
    if (SCRIPT_ONLY.has(name) || !given(value)) continue;
    const ok = OBJECTS.has(name) ? isRecord(value) || typeof value === 'string' : ['string', 'number', 'boolean'].includes(typeof value);
    if (!ok) return invalid(name);
  }
  return undefined;
}

/**
 * The query of `/purchase` for checked settings: `signature` alone when signed, else every
 * setting Chipin reads (objects as JSON, `amountCents` as the whole number it was read as), then
 * Chipin's own `embed=1` and `parent_origin` (the merchant page's origin: where the page posts).
 */
export function purchaseQuery(settings: Record<string, unknown>, parentOrigin: string): string {
  const q = new URLSearchParams();
  if (given(settings.signature)) q.set('signature', String(settings.signature));
  else {
    for (const [name, value] of Object.entries(settings)) {
      if (SCRIPT_ONLY.has(name) || !given(value)) continue;
      if (name === 'amountCents') {
        const amount = readPluginAmountCents(value);
        q.set(name, amount.ok ? String(amount.cents) : String(value));
      } else q.set(name, isRecord(value) ? JSON.stringify(value) : String(value));
    }
  }
  q.set('embed', '1');
  q.set('parent_origin', parentOrigin);
  return q.toString();
}

/**
 * A Chipin error that ends the payment (the last refused attempt, an expired, cancelled or aborted
 * purchase), as the original's `onError` gets it: the type the hosted page gives it
 * (`payment_refused`, `not_eligible` after the risk rules, `bad_gateway`, `abandonment`:
 * docs/plugin-integration.md#the-return-to-the-shop), else `payment_refused`, and Chipin's
 * sentence. A refusal with attempts left never gets here (the shopper retries in the frame).
 */
export function paymentError(error: { message: string; type?: PledgErrorType }): PledgError {
  return { type: error.type ?? 'payment_refused', message: error.message };
}
