import type { CountryCode } from 'libphonenumber-js/min';
import { isEmailAddress } from '../domain/email.ts';
import { normalizeTypedPhone } from '../messaging/phone-numbers.ts';

/**
 * Who a shopper is in their space: an e-mail address, lower-cased, or a phone number in E.164.
 * The same identity across every merchant using Chipin; the space shows the purchases where it
 * is the leader's or a pledger's (docs/shopper-space.md).
 */
export interface ShopperIdentity {
  kind: 'email' | 'phone';
  value: string;
}

/**
 * What a shopper typed on the sign-in form, as an identity, or undefined when it is neither a
 * valid e-mail address nor a valid phone number (a national number is read in `country`).
 */
export function parseIdentity(text: string, country: CountryCode): ShopperIdentity | undefined {
  const typed = text.trim();
  if (typed.length === 0 || typed.length > 254) return undefined;
  if (typed.includes('@')) return isEmailAddress(typed) ? { kind: 'email', value: typed.toLowerCase() } : undefined;
  const phone = normalizeTypedPhone(typed, country);
  return phone ? { kind: 'phone', value: phone } : undefined;
}

/** An identity stored by this module, read back (the table's CHECK allows these two kinds only). */
export function identityOf(kind: string, value: string): ShopperIdentity {
  return { kind: kind === 'phone' ? 'phone' : 'email', value };
}

/** What the pages show of an identity: the e-mail as is, a phone number with all but its last 2 digits hidden. */
export function maskedIdentity(identity: ShopperIdentity): string {
  if (identity.kind === 'email') return identity.value;
  return identity.value.slice(0, 3) + identity.value.slice(3, -2).replace(/\d/g, '•') + identity.value.slice(-2);
}
