import { acceptedLang, knownLang, type Lang } from './lang.ts';

/**
 * What is known of a shopper's language, each in whatever spelling it came (`fr_FR`, `es-ES`,
 * `de`, an Accept-Language header). Absent, or naming none of the six languages: not known.
 */
export interface LanguageClues {
  /** The language the shopper picked on the page being shown (`?lang=`, the switcher). Pages only: a message has none. */
  asked?: string | undefined;
  /**
   * The purchase's language when the merchant set one (Merchant API v1's and the Token API's
   * `language`, a plugin's `lang`): never a default the service chose for a purchase created without one.
   */
  merchant?: string | undefined;
  /** The language of the hosted page this shopper last used: kept on the purchase for the leader, on the pledge for a friend. */
  lastPage?: string | undefined;
  /** The browser's Accept-Language, when a page is being used (a message has no browser). */
  browser?: string | undefined;
  /** A friend who has used no page yet: the language of the leader's last page, who invited them. */
  inviter?: string | undefined;
  /** The account's language (`accounts.language`). */
  account?: string | undefined;
}

/**
 * The language a shopper gets, on a hosted page, in the shopper's space and in every e-mail and
 * SMS alike (docs/hosted-payment.md#language, docs/messaging.md#texts-and-languages): the first
 * known of the shopper's pick on the page, the merchant's, the shopper's last page's, the
 * browser's, for a friend the leader's last page's, the account's; English when none is.
 */
export function shopperLang(clues: LanguageClues): Lang {
  return (
    knownLang(clues.asked) ?? knownLang(clues.merchant) ?? knownLang(clues.lastPage) ?? acceptedLang(clues.browser) ?? knownLang(clues.inviter) ?? knownLang(clues.account) ?? 'en'
  );
}

/** The clue a purchase gives: its language when the merchant set it, nothing when it is a default. */
export function merchantLanguage(purchase: { language: string; languageSet: boolean }): string | undefined {
  return purchase.languageSet ? purchase.language : undefined;
}

/**
 * The language of a message to one of a purchase's shoppers, by {@link shopperLang}'s rule with
 * what a message knows (no page, no browser): the merchant's, the recipient's last page's (the
 * leader's on the purchase; a friend's on their pledge, else the leader's, who invited them), the
 * account's. A friend gets their own: `pledge` is theirs, absent for the leader.
 */
export function messageLang(
  purchase: { language: string; languageSet: boolean; pageLanguage: string | null },
  accountLanguage: string | undefined,
  pledge?: { pageLanguage: string | null },
): Lang {
  return shopperLang({
    merchant: merchantLanguage(purchase),
    lastPage: (pledge ? pledge.pageLanguage : purchase.pageLanguage) ?? undefined,
    inviter: pledge ? (purchase.pageLanguage ?? undefined) : undefined,
    account: accountLanguage,
  });
}
