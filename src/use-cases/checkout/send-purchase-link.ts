import { paymentPageUrl } from '../../domain/links.ts';
import type { CreditOfferRules } from '../../domain/offer-terms.ts';
import type { Messenger, OfferSummary } from '../../messaging/messenger.ts';
import { offerSummary } from '../../messaging/offer-summary.ts';
import { requestedDatesOf } from '../../domain/schedule.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { messageLang } from '../../i18n/shopper-lang.ts';

export interface SendPurchaseLinkDeps {
  messenger: Pick<Messenger, 'sendPurchaseLinkEmail' | 'sendPurchaseLinkSms'>;
  publicUrl: string;
}

export interface SendPurchaseLinkInput {
  purchase: Purchase;
  merchantName: string;
  /** The account's time zone (IANA name). */
  timeZone: string;
  /** Send the link by e-mail to this address. */
  email?: string;
  /** Send the link by SMS to this number (E.164). */
  phoneNumber?: string;
  /** Greets the leader by name when given. */
  firstName?: string;
  /** The purchase's offer: the messages say what it is (a pot, 3x with its credit terms, a deferred payment). */
  offer?: CreditOfferRules;
  /** The account's language: the link's when the merchant set none (no page was used yet). */
  accountLanguage?: string;
}

/** The payment page's URL, and per channel asked for, whether the mail server / SMS gateway accepted the message. */
export interface SentPurchaseLink {
  url: string;
  emailSent?: boolean;
  smsSent?: boolean;
}

/**
 * Sends a stored purchase's payment link to its leader, by e-mail and/or SMS. Never throws for a
 * refused message: the purchase exists whatever the channels answer, and the caller reports it.
 */
export async function sendPurchaseLink(deps: SendPurchaseLinkDeps, input: SendPurchaseLinkInput): Promise<SentPurchaseLink> {
  const { purchase } = input;
  const url = paymentPageUrl(deps.publicUrl, purchase.id);
  const message = {
    accountId: purchase.accountId,
    purchaseId: purchase.id,
    language: messageLang(purchase, input.accountLanguage),
    merchantName: input.merchantName,
    timeZone: input.timeZone,
    title: purchase.title,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    url,
    firstName: input.firstName,
    ...(input.offer ? summaryOf(input.offer, purchase) : {}),
  };
  const [emailSent, smsSent] = await Promise.all([
    input.email === undefined ? undefined : deps.messenger.sendPurchaseLinkEmail(input.email, message),
    input.phoneNumber === undefined ? undefined : deps.messenger.sendPurchaseLinkSms(input.phoneNumber, message),
  ]);
  return { url, ...(emailSent === undefined ? {} : { emailSent }), ...(smsSent === undefined ? {} : { smsSent }) };
}

/** The offer as the link tells it; left out (the pot's wording) only if its schedule cannot be computed, which purchase creation prevents. */
function summaryOf(offer: CreditOfferRules, purchase: Purchase): { offer?: OfferSummary } {
  try {
    return { offer: offerSummary(offer, purchase.amountCents, purchase.createdAt, requestedDatesOf(purchase)) };
  } catch {
    return {};
  }
}
