import { html, type SafeHtml } from '../html/html.ts';
import type { Texts } from './texts.ts';

/** The card fields, each with a visible label, autocomplete hints and error wiring. */
export function cardFields(t: Texts, values: { holder?: string } = {}): SafeHtml {
  return html`
<fieldset>
  <legend>${t.cardTitle}</legend>
  <label for="holder_name">${t.cardholder}</label>
  <input id="holder_name" name="holder_name" autocomplete="cc-name" required maxlength="100" value="${values.holder ?? ''}">
  <label for="card_number">${t.cardNumber}</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="1234 1234 1234 1234">
  <div class="row">
    <div><label for="card_expiry">${t.expiry}</label>
      <input id="card_expiry" name="card_expiry" inputmode="numeric" autocomplete="cc-exp" required maxlength="7" placeholder="${t.expiryHint}" aria-describedby="card_expiry_hint">
      <small id="card_expiry_hint" class="muted">${t.expiryHint}</small></div>
    <div><label for="card_cvc">${t.cvc}</label>
      <input id="card_cvc" name="card_cvc" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" aria-describedby="card_cvc_hint">
      <small id="card_cvc_hint" class="muted">${t.cvcHint}</small></div>
  </div>
</fieldset>`;
}

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

/** The card as typed, or undefined when a field is missing or malformed (the PSP judges the rest). */
export function readCard(form: Record<string, unknown>, now: Date): TypedCard | undefined {
  const number = field(form, 'card_number').replace(/[\s-]/g, '');
  const cvc = field(form, 'card_cvc');
  const holderName = field(form, 'holder_name');
  const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(field(form, 'card_expiry'));
  if (!/^\d{12,19}$/.test(number) || !/^\d{3,4}$/.test(cvc) || !holderName || !m) return undefined;
  const expMonth = Number(m[1]);
  const year = Number(m[2]);
  const expYear = year < 100 ? 2000 + year : year;
  if (expMonth < 1 || expMonth > 12 || expYear > now.getUTCFullYear() + 30) return undefined;
  return { number, expMonth, expYear, cvc, holderName: holderName.slice(0, 100) };
}
