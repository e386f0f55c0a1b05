import { isDay, isDayText } from './dates.ts';
import { isEmailAddress } from './email.ts';
import { pluginAmountMessage, readPluginAmountCents } from './plugin-amount.ts';

/**
 * The settings of the direct call of the front (`GET /purchase`, docs/plugin-integration.md):
 * what the original provider's shop plugins and the Pledg script send, read into one typed
 * object, whether they came as query parameters or inside a signed JWT. Every setting of that
 * integration's tables is accepted; unknown ones are ignored (as the Token API's `data` does).
 * A wrong setting is refused naming it, never guessed: the shopper would pay for something else.
 * Pure.
 */

/** A billing or shipping address as the plugins send it; every part optional. */
interface PluginAddress {
  street?: string;
  city?: string;
  zipcode?: string;
  stateProvince?: string;
  country?: string;
}

export interface PluginSettings {
  merchantUid: string;
  amountCents: number;
  email: string;
  title: string;
  firstName?: string;
  lastName?: string;
  reference?: string;
  subtitle?: string;
  /** ISO 4217, upper case. */
  currency?: string;
  /** As given (`fr_FR`, `de_DE`, `en`): the pages speak French for `fr*`, English otherwise. */
  lang?: string;
  /** As given (national or international): read by the caller with the country rule. */
  phoneNumber?: string;
  /** ISO 3166-1 alpha-2, upper case: the country national phone numbers are read in. */
  countryCode?: string;
  address?: PluginAddress;
  shippingAddress?: PluginAddress;
  civility?: 'Mr' | 'Ms';
  birthDate?: string;
  birthCity?: string;
  birthCountry?: string;
  birthZipcode?: string;
  birthStateProvince?: string;
  metadata?: Record<string, unknown>;
  redirectUrl?: string;
  cancelUrl?: string;
  paymentNotificationUrl?: string;
  errorNotificationUrl?: string;
  /** `YYYY-MM-DD`. */
  secondInstallmentPaymentDate?: string;
  deferredPaymentDate?: string;
  balancePaymentDate?: string;
  showCloseButton?: boolean;
  externalCheckoutValidation?: boolean;
}

export type SettingsReading = { ok: true; settings: PluginSettings } | { ok: false; field: string; message: string };

/** Query parameters that are Chipin's own or the signature itself, never settings. */
const NOT_SETTINGS = new Set(['signature', 'embed', 'parent_origin']);

/** Metadata is stored and sent back with every notification: kept small, as the Token API's. */
const MAX_METADATA_BYTES = 8 * 1024;

const MAX_TEXT = 255;
const ADDRESS_PARTS = ['street', 'city', 'zipcode', 'stateProvince', 'country'] as const;

class Refusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The settings of a query string, as the plugins write them: scalars as they are; nested objects
 * either as a JSON string (`address={"city":"Paris"}`, the WooCommerce plugin's unsigned call) or
 * with PHP's `http_build_query` brackets (`address[city]=Paris`, `metadata[products][0][name]=…`).
 * A parameter given twice counts once, the last (as PHP reads it). Chipin's own parameters and
 * `signature` are left out.
 */
export function settingsFromQuery(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const path = bracketPath(key);
    if (!path || NOT_SETTINGS.has(path[0]!)) continue;
    let node = out;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      node =
        Object.hasOwn(node, part) && typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : (node[part] = Object.create(null) as Record<string, unknown>);
    }
    node[path[path.length - 1]!] = value;
  }
  return out;
}

/** `address[street]` → ['address', 'street']; `title` → ['title']; undefined for what PHP would not write. */
function bracketPath(key: string): string[] | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return undefined;
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  if (rest.length > 8 || rest.some((p) => p === '' || p === '__proto__')) return undefined;
  return m[1] === '__proto__' ? undefined : [m[1]!, ...rest];
}

/**
 * `raw` (a query's settings, or the `data` of a signed JWT) read into {@link PluginSettings}, or
 * the first wrong setting, named. Strings from a query and JSON values from a JWT are read alike
 * (`"1"`/`true`, `"30550"`/`30550`); an empty string is a setting left out (PHP writes absent
 * values so).
 */
export function readPluginSettings(raw: Readonly<Record<string, unknown>>): SettingsReading {
  try {
    return { ok: true, settings: read(raw) };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}

function read(raw: Readonly<Record<string, unknown>>): PluginSettings {
  const get = (name: string): unknown => (Object.hasOwn(raw, name) ? raw[name] : undefined);
  const merchantUid = text(get('merchantUid'), 'merchantUid', 64);
  if (merchantUid === undefined) throw new Refusal('merchantUid', 'merchantUid is required');
  const amountValue = get('amountCents');
  if (amountValue === undefined || amountValue === '') throw new Refusal('amountCents', 'amountCents is required');
  const amount = readPluginAmountCents(amountValue);
  if (!amount.ok) throw new Refusal('amountCents', pluginAmountMessage('amountCents', amount.reason));
  if (amount.cents < 1) throw new Refusal('amountCents', 'amountCents must be at least 1');
  const email = text(get('email'), 'email', 254);
  if (email === undefined) throw new Refusal('email', 'email is required');
  if (!isEmailAddress(email)) throw new Refusal('email', 'email is not an e-mail address');
  const title = text(get('title'), 'title', MAX_TEXT);
  if (title === undefined) throw new Refusal('title', 'title is required');

  const s: PluginSettings = { merchantUid, amountCents: amount.cents, email, title };
  assign(s, 'firstName', text(get('firstName'), 'firstName', 100));
  assign(s, 'lastName', text(get('lastName'), 'lastName', 100));
  assign(s, 'reference', text(get('reference'), 'reference', MAX_TEXT));
  assign(s, 'subtitle', text(get('subtitle'), 'subtitle', MAX_TEXT));
  const currency = text(get('currency'), 'currency', 3)?.toUpperCase();
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) throw new Refusal('currency', 'currency must be an ISO 4217 code (EUR)');
  assign(s, 'currency', currency);
  const lang = text(get('lang'), 'lang', 35);
  if (lang !== undefined && !/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8})*$/.test(lang)) throw new Refusal('lang', 'lang must be a locale such as fr_FR or en_GB');
  assign(s, 'lang', lang);
  assign(s, 'phoneNumber', text(get('phoneNumber'), 'phoneNumber', 40));
  assign(s, 'countryCode', country(get('countryCode'), 'countryCode'));
  assign(s, 'address', address(get('address'), 'address'));
  // Magento's module names it `shipping_address` (docs/plugin-integration.md).
  const shippingKey = get('shippingAddress') === undefined && get('shipping_address') !== undefined ? 'shipping_address' : 'shippingAddress';
  assign(s, 'shippingAddress', address(get(shippingKey), shippingKey));
  assign(s, 'civility', civilityOf(text(get('civility'), 'civility', 20)));
  const birthDate = text(get('birthDate'), 'birthDate', 10);
  if (birthDate !== undefined && !isDayText(birthDate)) throw new Refusal('birthDate', 'birthDate must be a calendar day YYYY-MM-DD');
  assign(s, 'birthDate', birthDate);
  assign(s, 'birthCity', text(get('birthCity'), 'birthCity', MAX_TEXT));
  assign(s, 'birthCountry', country(get('birthCountry'), 'birthCountry'));
  assign(s, 'birthZipcode', text(get('birthZipcode'), 'birthZipcode', 20));
  assign(s, 'birthStateProvince', text(get('birthStateProvince'), 'birthStateProvince', MAX_TEXT));
  assign(s, 'metadata', metadata(get('metadata')));
  assign(s, 'redirectUrl', url(get('redirectUrl'), 'redirectUrl', false));
  assign(s, 'cancelUrl', url(get('cancelUrl'), 'cancelUrl', false));
  // PrestaShop's module signs it as `notificationUrl` (docs/plugin-integration.md).
  const notificationKey = get('paymentNotificationUrl') === undefined && get('notificationUrl') !== undefined ? 'notificationUrl' : 'paymentNotificationUrl';
  assign(s, 'paymentNotificationUrl', url(get(notificationKey), notificationKey, true));
  assign(s, 'errorNotificationUrl', url(get('errorNotificationUrl'), 'errorNotificationUrl', true));
  for (const name of ['secondInstallmentPaymentDate', 'deferredPaymentDate', 'balancePaymentDate'] as const) {
    const day = text(get(name), name, 10);
    if (day !== undefined && !isDay(day)) throw new Refusal(name, `${name} must be a calendar day YYYY-MM-DD`);
    assign(s, name, day);
  }
  assign(s, 'showCloseButton', flag(get('showCloseButton'), 'showCloseButton'));
  assign(s, 'externalCheckoutValidation', flag(get('externalCheckoutValidation'), 'externalCheckoutValidation'));
  return s;
}

/**
 * The interface's `Mr` / `Ms`, from what the shop plugins write: PrestaShop's module sends `Mme`
 * for every customer who is not `Mr`; French and English titles are read alike. Anything else is
 * refused, naming the setting (docs/plugin-integration.md).
 */
const CIVILITIES: Readonly<Record<string, 'Mr' | 'Ms'>> = {
  mr: 'Mr',
  'mr.': 'Mr',
  m: 'Mr',
  'm.': 'Mr',
  monsieur: 'Mr',
  ms: 'Ms',
  'ms.': 'Ms',
  mrs: 'Ms',
  'mrs.': 'Ms',
  miss: 'Ms',
  mme: 'Ms',
  mlle: 'Ms',
  madame: 'Ms',
  mademoiselle: 'Ms',
};

function civilityOf(value: string | undefined): 'Mr' | 'Ms' | undefined {
  if (value === undefined) return undefined;
  const civility = Object.hasOwn(CIVILITIES, value.toLowerCase()) ? CIVILITIES[value.toLowerCase()] : undefined;
  if (!civility) throw new Refusal('civility', 'civility must be Mr or Ms (Mme, Mlle, Mrs and Miss are read as Ms)');
  return civility;
}

function assign<K extends keyof PluginSettings>(s: PluginSettings, key: K, value: PluginSettings[K] | undefined): void {
  if (value !== undefined) s[key] = value;
}

/** A text setting, trimmed; undefined when absent or empty; a number is read as its text (a reference `12345`). */
function text(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') throw new Refusal(field, `${field} must be a text`);
  const t = value.trim();
  if (t === '') return undefined;
  if (t.length > max) throw new Refusal(field, `${field} must be at most ${max} characters`);
  return t;
}

function country(value: unknown, field: string): string | undefined {
  const c = text(value, field, 2)?.toUpperCase();
  if (c !== undefined && !/^[A-Z]{2}$/.test(c)) throw new Refusal(field, `${field} must be an ISO 3166-1 alpha-2 code (FR)`);
  return c;
}

/** `true`/`false`, or as a query writes them: `1`/`0` (PHP), `true`/`false`. */
function flag(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  throw new Refusal(field, `${field} must be true or false`);
}

/** An http(s) URL (and `mailto:` for notification targets, as the Token API accepts). */
function url(value: unknown, field: string, mailto: boolean): string | undefined {
  const t = text(value, field, 2048);
  if (t === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    throw new Refusal(field, `${field} must be an absolute URL`);
  }
  const ok = u.protocol === 'https:' || u.protocol === 'http:' || (mailto && u.protocol === 'mailto:' && isEmailAddress(decodeURIComponent(u.pathname)));
  if (!ok) throw new Refusal(field, mailto ? `${field} must be an http(s) URL or a mailto: address` : `${field} must be an http(s) URL`);
  return t;
}

/** A nested setting: an object, or its JSON text; PHP's empty array (`[]`) is an empty one. */
function nested(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new Refusal(field, `${field} must be an object, as JSON or as ${field}[name]=value parameters`);
    }
  }
  if (Array.isArray(v) && v.length === 0) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Refusal(field, `${field} must be an object`);
  return v as Record<string, unknown>;
}

function address(value: unknown, field: string): PluginAddress | undefined {
  const o = nested(value, field);
  if (!o) return undefined;
  const a: PluginAddress = {};
  for (const part of ADDRESS_PARTS) {
    const v = part === 'country' ? country(o[part], `${field}.country`) : text(Object.hasOwn(o, part) ? o[part] : undefined, `${field}.${part}`, MAX_TEXT);
    if (v !== undefined) a[part] = v;
  }
  return Object.keys(a).length ? a : undefined;
}

function metadata(value: unknown): Record<string, unknown> | undefined {
  const o = nested(value, 'metadata');
  if (!o) return undefined;
  // A plain object again: bracket parameters built it without a prototype, and JSON keeps it plain.
  const plain = JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  if (new TextEncoder().encode(JSON.stringify(plain)).length > MAX_METADATA_BYTES) throw new Refusal('metadata', `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`);
  return plain;
}
