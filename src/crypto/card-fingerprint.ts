import { createHmac } from 'node:crypto';

/**
 * Chipin's fingerprint of a card number, the same for every PSP (docs/risk.md#card-facts): a keyed
 * HMAC-SHA256 of the account and the digits, so that the same card is recognised across purchases
 * of one account (block and allow lists, velocity by card) while nothing stored lets anyone
 * recover the number, nor tie one account's cards to another's. `cfp_` and 26 base64url
 * characters (156 bits).
 */
export function cardFingerprint(key: Buffer, accountId: string, number: string): string {
  const digits = number.replace(/\D/g, '');
  return `cfp_${createHmac('sha256', key).update(`${accountId}|${digits}`).digest('base64url').slice(0, 26)}`;
}
