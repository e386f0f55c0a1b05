import { html, type SafeHtml } from '../html/html.ts';
import { fieldError, invalidAttrs, type FormErrors } from './errors.ts';
import type { Texts } from './texts.ts';

/**
 * The card fields, each with a visible label, autocomplete hints and error wiring: a field the
 * server found wrong is `aria-invalid` and described by its own message. The cardholder's name
 * is kept after an error; the card's own fields never are.
 */
export function cardFields(t: Texts, values: { holder?: string } = {}, errors?: FormErrors): SafeHtml {
  return html`
<fieldset>
  <legend>${t.cardTitle}</legend>
  <label for="holder_name">${t.cardholder}</label>
  ${fieldError(errors, 'holder_name')}
  <input id="holder_name" name="holder_name" autocomplete="cc-name" required maxlength="100" value="${values.holder ?? ''}"${invalidAttrs(errors, 'holder_name')}>
  <label for="card_number">${t.cardNumber}</label>
  ${fieldError(errors, 'card_number')}
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="1234 1234 1234 1234"${invalidAttrs(errors, 'card_number')}>
  <div class="card-pair">
    <div><label for="card_expiry">${t.expiry}</label>
      ${fieldError(errors, 'card_expiry')}
      <input id="card_expiry" name="card_expiry" inputmode="numeric" autocomplete="cc-exp" required maxlength="7" placeholder="${t.expiryHint}" data-error="${t.fieldErrors.card_expiry}"${invalidAttrs(errors, 'card_expiry', 'card_expiry_hint')}>
      <small id="card_expiry_hint" class="muted">${t.expiryHint}</small></div>
    <div><label for="card_cvc">${t.cvc}</label>
      ${fieldError(errors, 'card_cvc')}
      <input id="card_cvc" name="card_cvc" inputmode="numeric" autocomplete="cc-csc" required maxlength="4"${invalidAttrs(errors, 'card_cvc', 'card_cvc_hint')}>
      <small id="card_cvc_hint" class="muted">${t.cvcHint}</small></div>
  </div>
</fieldset>`;
}

/** The card field a PSP refusal is about, when it is about one field. */
export const DECLINE_FIELD: Readonly<Record<string, string>> = { incorrect_cvc: 'card_cvc', expired_card: 'card_expiry', invalid_card: 'card_number' };

/**
 * The message of a PSP refusal on a hosted page, from its real reason: an authentication refused
 * as the card was registered, before any 3-D Secure step, is a card without 3-D Secure (the
 * sandbox's Amex test card), which no retry with it can pass: "use another card", not "try again".
 */
export function declineText(t: Texts, d: { reason: string; atAttach?: true }): string {
  const key = d.reason === 'authentication_failed' && d.atAttach ? 'authentication_unsupported' : d.reason;
  return t.errors[key] ?? t.errors.processing_error!;
}

export type CardField = 'holder_name' | 'card_number' | 'card_expiry' | 'card_cvc';

/** A card as typed on a page: what a PSP connector's `CardInput` takes. */
export interface TypedCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  holderName: string;
}

function field(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  return typeof v === 'string' ? v.trim() : '';
}

/** The card as typed, or which fields are missing or malformed (in the form's order). */
export function checkCard(form: Record<string, unknown>, now: Date): { ok: true; card: TypedCard } | { ok: false; fields: CardField[] } {
  const number = field(form, 'card_number').replace(/[\s-]/g, '');
  const cvc = field(form, 'card_cvc');
  const holderName = field(form, 'holder_name');
  const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(field(form, 'card_expiry'));
  const bad: CardField[] = [];
  if (!holderName) bad.push('holder_name');
  if (!/^\d{12,19}$/.test(number)) bad.push('card_number');
  const expMonth = m ? Number(m[1]) : 0;
  const year = m ? Number(m[2]) : 0;
  const expYear = year < 100 ? 2000 + year : year;
  if (!m || expMonth < 1 || expMonth > 12 || expYear > now.getUTCFullYear() + 30) bad.push('card_expiry');
  if (!/^\d{3,4}$/.test(cvc)) bad.push('card_cvc');
  if (bad.length) return { ok: false, fields: bad };
  return { ok: true, card: { number, expMonth, expYear, cvc, holderName: holderName.slice(0, 100) } };
}

/** The typed cardholder's name, kept when the page is shown again. */
export function typedHolder(form: Record<string, unknown>): string {
  return field(form, 'holder_name').slice(0, 100);
}
