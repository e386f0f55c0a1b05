import type { CountryCode } from 'libphonenumber-js/min';
import type { Offer } from '../../accounts/offer.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { unverifiedPayload, verifyHs256Claims } from '../../delivery/jwt.ts';
import { readPluginSettings, settingsFromQuery, type PluginSettings } from '../../domain/plugin-settings.ts';
import { isPhoneCountry } from '../../i18n/countries.ts';
import { normalizeTypedPhone } from '../../messaging/phone-numbers.ts';
import { offerPaymentMode } from '../../payments/bank-transfer-repository.ts';
import { findOfferSecret } from '../../payments/pay-state-repository.ts';
import { findReferencePurchases, lockReference } from '../../purchases/purchase-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { formatIsoDate } from '../../domain/dates.ts';
import { offerTerms } from '../../domain/offer-terms.ts';
import { computeSchedule, ScheduleError, type RequestedDates, requestedDatesOf } from '../../domain/schedule.ts';
import { originOf } from '../../sdk/protocol.ts';
import { createPurchase, type CreatePurchaseDeps } from './create-purchase.ts';

export interface PluginPurchaseDeps extends CreatePurchaseDeps {
  db: Database;
  box: SecretBox;
  offers: CreatePurchaseDeps['offers'] & { findPublic(merchantUid: string): Promise<Offer | undefined> };
  /** The deployment's country (`MERCHANT_COUNTRY`), last in the phone number rule. */
  merchantCountry: CountryCode;
}

export interface PluginPurchaseRequest {
  /** The query as the router parsed it: the settings, or `signature`, and Chipin's own `embed` / `parent_origin`. */
  query: Readonly<Record<string, unknown>>;
  /** Opened by the Pledg script's iframe (`embed=1`): no redirectUrl needed, the script gets the outcome. */
  embed: boolean;
  /** The origin of the page embedding the iframe, as the script passed it. */
  parentOrigin?: string;
  /**
   * What the purchase keeps as its `language` when the settings give no `lang`: a default no rule
   * reads (the pages and messages then follow the shopper: docs/hosted-payment.md#language).
   */
  fallbackLang: string;
  /** Real time, for the JWT's `exp` / `nbf` (the merchant signs with its clock, not the sandbox's). */
  now: Date;
  /**
   * The direct call of the back (`/api/payment_by_transfer`, docs/plugin-integration.md#the-direct-call-of-the-back):
   * the shopper pays by bank transfer, so the settings must be signed, the offer must be a SHARED
   * one in transfer mode, and redirectUrl / cancelUrl do not apply (nothing returns to the shop).
   */
  byTransfer?: boolean;
}

export type PluginPurchaseOutcome =
  /** A purchase to pay: created now, or the still-unpaid one of the same offer, reference, amount and currency. */
  | { kind: 'ready'; purchase: Purchase; offer: Offer; reused: boolean }
  /** The reference is already paid on that offer: nothing was created. */
  | { kind: 'already_paid'; lang: string | undefined }
  /** A setting (or the signature) is wrong: nothing was created. `field` names it for the page; `notTransferMode`: the offer is not in transfer mode (the back's call). */
  | { kind: 'refused'; field: string; message: string; lang: string | undefined; notTransferMode?: true };

/** States in which a purchase's reference counts as paid: the shop must not be paid twice for one order. */
const PAID = new Set(['LEADER_PROCESSED', 'SUCCESSFUL', 'REFUNDED']);

/**
 * The direct call of the front (docs/plugin-integration.md): the settings the original provider's
 * shop plugins send, as query parameters or signed in one JWT, made into a purchase to pay on the
 * hosted checkout.
 *
 * - Signed (`signature`): a JWT HS256 of `{data: settings}` with the offer's secret, verified in
 *   constant time, `exp`/`nbf` honoured. Its settings are the only ones read: unsigned ones beside
 *   it are ignored (only Chipin's own `embed` and `parent_origin` count), so a signed call cannot
 *   be altered by adding parameters. A `parent_origin` other than the signed redirectUrl's origin
 *   is refused: the result would be posted to a page the merchant did not sign for.
 * - Unsigned: public input. It can create an unpaid purchase on a public offer id and nothing
 *   more (docs/security.md#the-direct-call-of-the-front).
 * - A reload of the same call pays the same purchase: the newest unpaid one of that offer,
 *   reference, amount and currency is reused. A reference already paid on the offer is refused.
 */
export async function createPluginPurchase(deps: PluginPurchaseDeps, request: PluginPurchaseRequest): Promise<PluginPurchaseOutcome> {
  const signature = lastOf(request.query.signature);
  const byTransfer = request.byTransfer === true;
  if (byTransfer && signature === undefined) {
    return { kind: 'refused', field: 'signature', message: 'signature is required: the direct call of the back takes signed settings only', lang: undefined };
  }
  let raw: Record<string, unknown>;
  let offer: Offer | undefined;
  if (signature !== undefined) {
    const claimed = dataOf(unverifiedPayload(signature));
    const lang = typeof claimed?.lang === 'string' ? claimed.lang : undefined;
    const refuse = (message: string) => ({ kind: 'refused', field: 'signature', message, lang }) as const;
    if (!claimed) return refuse('signature must be a JWT whose payload is {"data": {...settings}}');
    offer = typeof claimed.merchantUid === 'string' ? await deps.offers.findPublic(claimed.merchantUid) : undefined;
    if (!offer) return { kind: 'refused', field: 'merchantUid', message: 'merchantUid names no offer', lang };
    const stored = await findOfferSecret(deps.db, offer.id);
    if (!stored) return { kind: 'refused', field: 'merchantUid', message: 'merchantUid names no offer', lang };
    const checked = verifyHs256Claims(signature, deps.box.open(stored.secretEnc).reveal(), request.now);
    if (!checked.ok) {
      if (checked.reason === 'expired') return refuse('signature has expired (exp)');
      if (checked.reason === 'not_yet_valid') return refuse('signature is not valid yet (nbf)');
      return refuse("signature is not an HS256 JWT signed with this offer's secret");
    }
    raw = dataOf(checked.payload)!;
  } else {
    raw = settingsFromQuery(request.query);
  }

  const read = readPluginSettings(raw);
  const rawLang = typeof raw.lang === 'string' ? raw.lang : undefined;
  if (!read.ok) return { kind: 'refused', field: read.field, message: read.message, lang: rawLang };
  const s = read.settings;
  const refused = (field: string, message: string) => ({ kind: 'refused', field, message, lang: s.lang }) as const;
  offer ??= await deps.offers.findPublic(s.merchantUid);
  if (!offer) return refused('merchantUid', 'merchantUid names no offer');

  if (byTransfer) {
    if ((await offerPaymentMode(deps.db, offer.id)) !== 'transfer') {
      return { kind: 'refused', field: 'merchantUid', message: 'merchantUid names an offer that is not in transfer mode', lang: s.lang, notTransferMode: true };
    }
    // A transfer pays the whole amount at once: a plan of installments or a deferred charge has nothing to take it.
    if (offer.type !== 'SHARED') return refused('merchantUid', 'merchantUid must name a SHARED offer: a payment by transfer pays the whole amount at once');
  } else if (!request.embed && !s.redirectUrl) return refused('redirectUrl', 'redirectUrl is required when the checkout is not in the Pledg script (embed=1)');
  // Nothing returns to the shop after a payment by transfer: its return URLs and their origin are not kept.
  const origin = byTransfer ? {} : merchantOriginOf(s, request.parentOrigin, signature !== undefined);
  if ('field' in origin) return refused(origin.field, origin.message);

  const dates = requestedDatesOf({
    secondInstallmentDate: s.secondInstallmentPaymentDate ?? null,
    deferredPaymentDate: s.deferredPaymentDate ?? null,
    balancePaymentDate: s.balancePaymentDate ?? null,
  });
  const dateRefusal = requestedDateRefusal(offer, s.amountCents, deps.clock.now(), dates);
  if (dateRefusal) return refused(dateRefusal.field, dateRefusal.message);

  // A national number is read in the purchase's country, else the offer's, else the merchant's
  // (docs/messaging.md#phone-numbers); a number that cannot be read is dropped, not refused: the
  // plugins send the shopper's billing phone as typed, and the payment does not need it.
  const country =
    [s.countryCode, offer.countryCode, offer.accountCountry].find((c): c is CountryCode => c !== undefined && c !== null && isPhoneCountry(c)) ?? deps.merchantCountry;
  const phoneNumber = s.phoneNumber === undefined ? undefined : readPhone(s.phoneNumber, country);

  return deps.db.transaction(async (tx) => {
    // One call at a time per offer and reference: a double click or two reloads at once find the
    // purchase the first one made instead of each creating one.
    if (s.reference !== undefined) await lockReference(tx, offer.id, s.reference);
    const earlier = s.reference === undefined ? [] : await findReferencePurchases(tx, offer.accountId, offer.id, s.reference);
    if (earlier.some((p) => PAID.has(p.state))) return { kind: 'already_paid', lang: s.lang } as const;
    const currency = s.currency ?? offer.currency;
    const unpaid = earlier.find((p) => p.state === 'CREATED' && p.amountCents === s.amountCents && p.currency === currency);
    if (unpaid) return { kind: 'ready', purchase: unpaid, offer, reused: true } as const;

    const outcome = await createPurchase(
      { ...deps, db: tx },
      {
        accountId: offer.accountId,
        merchantUid: s.merchantUid,
        resolvedOffer: offer,
        ref: s.reference,
        title: s.title,
        subtitle: s.subtitle,
        amountCents: s.amountCents,
        currency: s.currency,
        language: s.lang ?? request.fallbackLang,
        // Only a `lang` the merchant sent is the merchant's choice.
        languageSet: s.lang !== undefined,
        phoneNumber,
        callbackUrl: byTransfer ? undefined : s.redirectUrl,
        cancelUrl: byTransfer ? undefined : s.cancelUrl,
        notificationUrl: s.paymentNotificationUrl,
        errorNotificationUrl: s.errorNotificationUrl,
        metadata: s.metadata,
        client: { email: s.email, firstName: s.firstName, lastName: s.lastName },
        merchantOrigin: origin.origin,
        secondInstallmentDate: s.secondInstallmentPaymentDate,
        deferredPaymentDate: s.deferredPaymentDate,
        balancePaymentDate: s.balancePaymentDate,
        pluginSettings: keptSettings(s, phoneNumber === undefined ? s.phoneNumber : undefined),
      },
    );
    if (outcome.kind === 'no_offer') return refused('merchantUid', 'merchantUid names no offer');
    if (outcome.kind === 'invalid') {
      const field = outcome.field === 'amount' ? 'amountCents' : outcome.field === 'balance_payment_date' ? 'balancePaymentDate' : outcome.field;
      return refused(field, `${field} ${outcome.message}`);
    }
    return { kind: 'ready', purchase: outcome.purchase, offer: outcome.offer, reused: false } as const;
  });
}

/**
 * Why the due dates the call asks for cannot make the offer's plan (docs/schedules.md#requested-dates),
 * told now to the shop rather than to the shopper at the payment. The amount's own refusals are
 * the purchase creation's.
 */
function requestedDateRefusal(offer: Offer, amountCents: number, now: Date, dates: RequestedDates): { field: string; message: string } | undefined {
  if (offer.type === 'SHARED' || Object.keys(dates).length === 0) return undefined;
  try {
    computeSchedule(offerTerms(offer), amountCents, formatIsoDate(now), dates);
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    if (err.code === 'invalid_second_installment_date') return { field: 'secondInstallmentPaymentDate', message: `secondInstallmentPaymentDate: ${err.message}` };
    if (err.code === 'invalid_deferred_date') return { field: 'deferredPaymentDate', message: `deferredPaymentDate: ${err.message}` };
    if (err.code === 'invalid_balance_payment_date') return { field: 'balancePaymentDate', message: `balancePaymentDate: ${err.message}` };
  }
  return undefined;
}

function lastOf(v: unknown): string | undefined {
  const x = Array.isArray(v) ? v[v.length - 1] : v;
  return typeof x === 'string' && x !== '' ? x : undefined;
}

/** The `data` object of a signed call's payload. */
function dataOf(payload: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const data = payload?.data;
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
}

/**
 * The merchant origin (docs/plugin-integration.md#the-merchant-origin): `parent_origin` when
 * given, else the origin of redirectUrl, else of cancelUrl; none leaves the callback rule.
 */
function merchantOriginOf(s: PluginSettings, parentOrigin: string | undefined, signed: boolean): { origin?: string } | { field: string; message: string } {
  if (parentOrigin !== undefined) {
    const origin = originOf(parentOrigin);
    if (!origin || origin !== parentOrigin.replace(/\/$/, '')) return { field: 'parent_origin', message: 'parent_origin must be an origin such as https://shop.example' };
    const signedOrigin = signed ? originOf(s.redirectUrl) : undefined;
    if (signedOrigin !== undefined && signedOrigin !== origin) return { field: 'parent_origin', message: 'parent_origin must be the origin of the signed redirectUrl' };
    return { origin };
  }
  return { origin: originOf(s.redirectUrl) ?? originOf(s.cancelUrl) };
}

/** National or international (with or without its `+`), in E.164; undefined when it is not a valid number. */
function readPhone(text: string, country: CountryCode): string | undefined {
  const national = normalizeTypedPhone(text, country);
  if (national) return national;
  const digits = text.replace(/[\s.\-()]/g, '');
  return /^[1-9]\d{7,14}$/.test(digits) ? normalizeTypedPhone(`+${digits}`, country) : undefined;
}

/** What has no column: the shopper's identity and addresses, and settings stored for a later use. */
function keptSettings(s: PluginSettings, unreadPhone: string | undefined): Record<string, unknown> {
  const kept: Record<string, unknown> = {
    civility: s.civility,
    birthDate: s.birthDate,
    birthCity: s.birthCity,
    birthCountry: s.birthCountry,
    birthZipcode: s.birthZipcode,
    birthStateProvince: s.birthStateProvince,
    address: s.address,
    shippingAddress: s.shippingAddress,
    countryCode: s.countryCode,
    showCloseButton: s.showCloseButton,
    externalCheckoutValidation: s.externalCheckoutValidation,
    unreadPhoneNumber: unreadPhone,
  };
  return Object.fromEntries(Object.entries(kept).filter(([, v]) => v !== undefined));
}
