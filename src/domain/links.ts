import { toPublicId } from './ids.ts';

/**
 * Every address of a hosted page Chipin hands out, built in one place so that the page routes,
 * the e-mails, the API views and the PSP return URLs can never disagree. `publicUrl` is the
 * configured `PUBLIC_URL` without a trailing slash.
 */

/** Where the leader pays: the hosted page of the purchase (`payment_url`). */
export function paymentPageUrl(publicUrl: string, purchaseId: string): string {
  return `${publicUrl}/pay/${toPublicId('pur', purchaseId)}`;
}

/** A pledger's own page. */
export function pledgePageUrl(publicUrl: string, pledgeId: string): string {
  return `${publicUrl}/pledge/${toPublicId('plg', pledgeId)}`;
}

/** Where the PSP sends the leader back after a 3-D Secure challenge. */
export function leaderReturnUrl(publicUrl: string, purchaseId: string, paymentId: string): string {
  return `${paymentPageUrl(publicUrl, purchaseId)}/return?payment=${encodeURIComponent(paymentId)}`;
}

/** Where the PSP sends a pledger back after a 3-D Secure challenge. */
export function pledgeReturnUrl(publicUrl: string, pledgeId: string, paymentId: string): string {
  return `${pledgePageUrl(publicUrl, pledgeId)}/return?payment=${encodeURIComponent(paymentId)}`;
}

/**
 * Where a merchant's PSP account sends its notifications (`/api/psp/{psa_id}/notifications`, set
 * in the PSP's back office or sent with each payment): by the account's public id.
 */
export function pspNotificationUrl(publicUrl: string, pspAccountId: string): string {
  return `${publicUrl}/api/psp/${toPublicId('psa', pspAccountId)}/notifications`;
}

/** The shopper's space opened on one purchase (sign-in first when the browser has no session): the link of every receipt and notice. */
export function spacePurchaseUrl(publicUrl: string, purchaseId: string): string {
  return `${publicUrl}${spacePurchasePath(purchaseId)}`;
}

/** The path of {@link spacePurchaseUrl}. */
export function spacePurchasePath(purchaseId: string): string {
  return `/space/purchases/${toPublicId('pur', purchaseId)}`;
}

/** A sign-in link of the shopper's space, sent by e-mail. */
export function spaceSignInLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/space/sign-in/link/${token}`;
}
