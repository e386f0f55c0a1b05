import { Catalogue, perLanguage, type KeyOf, type Values } from '../../i18n/catalogue.ts';
import de from '../../i18n/catalogues/space/de.json' with { type: 'json' };
import en from '../../i18n/catalogues/space/en.json' with { type: 'json' };
import es from '../../i18n/catalogues/space/es.json' with { type: 'json' };
import fr from '../../i18n/catalogues/space/fr.json' with { type: 'json' };
import it from '../../i18n/catalogues/space/it.json' with { type: 'json' };
import nl from '../../i18n/catalogues/space/nl.json' with { type: 'json' };
import type { Lang } from '../../i18n/lang.ts';

/**
 * The words of the shopper's space (docs/shopper-space.md), its sign-in pages and its leader's
 * payment forms, from their catalogues (`src/i18n/catalogues/space/<lang>.json`): asked for by
 * meaning, with the values a sentence takes (amounts and dates formatted in the page's language by
 * the caller), never joining pieces of one.
 */
const WORDS = new Catalogue<KeyOf<typeof en>>('space', { de, en, es, fr, it, nl });

/** The languages the space speaks: the hosted pages' six. */
export const SPACE_LANGS: readonly Lang[] = WORDS.langs;

function texts(lang: Lang) {
  const w = (key: KeyOf<typeof en>, values?: Values) => WORDS.text(lang, key, values);
  return {
    language: w('language'),
    spaceTitle: w('spaceTitle'),
    signInTitle: w('signInTitle'),
    signInIntro: w('signInIntro'),
    identityLabel: w('identityLabel'),
    identityHint: w('identityHint'),
    identityInvalid: w('identityInvalid'),
    errorTitle: w('errorTitle'),
    /** A page's title once its form was refused. */
    errorPageTitle: (page: string) => w('errorPageTitle', { page }),
    send: w('send'),
    sentTitle: w('sentTitle'),
    sentEmail: (minutes: number) => w('sentEmail', { minutes }),
    sentPhone: (minutes: number) => w('sentPhone', { minutes }),
    codeTitle: w('codeTitle'),
    codeLabel: w('codeLabel'),
    codeMalformed: w('codeMalformed'),
    codeWrong: (left: number) => w('codeWrong', { left }),
    codeNone: w('codeNone'),
    codeSubmit: w('codeSubmit'),
    askAgain: w('askAgain'),
    throttled: (seconds: number) => w('throttled', { seconds }),
    linkInvalidTitle: w('linkInvalidTitle'),
    /** `minutes`: how long a link works (LINK_MINUTES), said as it is. */
    linkInvalid: (minutes: number) => w('linkInvalid', { minutes }),
    linkOtherBrowserTitle: w('linkOtherBrowserTitle'),
    linkOtherBrowser: w('linkOtherBrowser'),
    expiredFormTitle: w('expiredFormTitle'),
    expiredForm: w('expiredForm'),
    signedInAs: (who: string) => w('signedInAs', { who }),
    signOut: w('signOut'),
    listIntro: w('listIntro'),
    listEmpty: w('listEmpty'),
    roleLeader: w('roleLeader'),
    /** The leader's line while nothing is paid yet: not bought yet. */
    roleLeaderUnpaid: w('roleLeaderUnpaid'),
    rolePledger: w('rolePledger'),
    yourShare: (amount: string) => w('yourShare', { amount }),
    boughtOn: (date: string) => w('boughtOn', { date }),
    startedOn: (date: string) => w('startedOn', { date }),
    soldBy: (merchant: string) => w('soldBy', { merchant }),
    notFoundTitle: w('notFoundTitle'),
    notFound: w('notFound'),
    backToList: w('backToList'),
    planTitle: w('planTitle'),
    planNumber: w('planNumber'),
    /** A down payment's two lines (docs/schedules.md#down-payment). */
    planDownPayment: [w('planLines.deposit'), w('planLines.balance')] as readonly string[],
    planDate: w('planDate'),
    planAmount: w('planAmount'),
    planState: w('planState'),
    planStates: WORDS.group(lang, 'planStates'),
    /** A refused line's next collection, as dunning recorded it. */
    retryOn: (date: string) => w('retryOn', { date }),
    planEmpty: w('planEmpty'),
    /** The card a plan is charged to; `brand` empty when unknown. */
    cardLine: (brand: string, last4: string) => (brand ? w('cardLine.brand', { brand, last4 }) : w('cardLine.noBrand', { last4 })),
    potTitle: w('potTitle'),
    potCollected: (collected: string, pledged: string) => w('potCollected', { collected, pledged }),
    potFriends: (paid: number, friends: number) => w('potFriends', { paid, friends }),
    potDeadline: (date: string) => w('potDeadline', { date }),
    shareTitle: w('shareTitle'),
    pledgeStates: WORDS.group(lang, 'pledgeStates'),
    payShare: w('payShare'),
    paidOn: (date: string) => w('paidOn', { date }),
    receiptsTitle: w('receiptsTitle'),
    receiptsEmpty: w('receiptsEmpty'),
    sentOn: (date: string) => w('sentOn', { date }),
    shopTitle: w('shopTitle'),
    shopSite: w('shopSite'),
    shopContact: w('shopContact'),
    /** The leader's payment forms (pay-forms.ts). */
    pay: {
      title: w('pay.title'),
      payNow: (n: number, amount: string) => w('pay.payNow', { n, amount }),
      refusedTitle: (n: number, total: number) => w('pay.refusedTitle', { n, total }),
      refusedBalanceTitle: w('pay.refusedBalanceTitle'),
      refusedDue: (amount: string, date: string) => w('pay.refusedDue', { amount, date }),
      retryOn: (date: string) => w('pay.retryOn', { date }),
      repay: (amount: string) => w('pay.repay', { amount }),
      payBalance: (amount: string) => w('pay.payBalance', { amount }),
      changeCard: w('pay.changeCard'),
      changeTitle: w('pay.changeTitle'),
      /** What the last action did, by `?done=`. */
      done: WORDS.group(lang, 'done'),
      /** Why it did nothing, by `?problem=`. */
      problem: WORDS.group(lang, 'problem'),
    },
  };
}

export type SpaceTexts = ReturnType<typeof texts>;

/** The space's words by language, each language's built on its first page. */
export const SPACE_TEXT = perLanguage(texts);
