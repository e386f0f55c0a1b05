import { Catalogue, perLanguage, type KeyOf, type Values } from '../i18n/catalogue.ts';
import de from '../i18n/catalogues/pages/de.json' with { type: 'json' };
import en from '../i18n/catalogues/pages/en.json' with { type: 'json' };
import es from '../i18n/catalogues/pages/es.json' with { type: 'json' };
import fr from '../i18n/catalogues/pages/fr.json' with { type: 'json' };
import it from '../i18n/catalogues/pages/it.json' with { type: 'json' };
import nl from '../i18n/catalogues/pages/nl.json' with { type: 'json' };
import { CREDIT_WORDS } from '../i18n/credit-words.ts';
import type { Lang } from '../i18n/lang.ts';

/**
 * The words of the hosted pages, for shoppers on a phone (docs/hosted-payment.md), from their
 * catalogues (`src/i18n/catalogues/pages/<lang>.json`; the credit box's from
 * `src/i18n/catalogues/credit/`): the pages ask for them by meaning, with the values a sentence
 * takes (amounts and dates formatted in the page's language), never joining pieces of one.
 */
const WORDS = new Catalogue<KeyOf<typeof en>>('pages', { de, en, es, fr, it, nl });

/** The languages the hosted pages speak: the six of the original interface. */
export const PAGE_LANGS: readonly Lang[] = WORDS.langs;

const yes = (flag: boolean) => (flag ? 'yes' : 'no');

function texts(lang: Lang) {
  const w = (key: KeyOf<typeof en>, values?: Values) => WORDS.text(lang, key, values);
  const credit = (key: Parameters<typeof CREDIT_WORDS.text>[1], values?: Values) => CREDIT_WORDS.text(lang, key, values);
  return {
    soldBy: w('soldBy'),
    testMode: w('testMode'),
    testModeText: w('testModeText'),
    basket: w('basket'),
    total: w('total'),
    notFoundTitle: w('notFoundTitle'),
    notFound: w('notFound'),
    cardTitle: w('cardTitle'),
    cardholder: w('cardholder'),
    cardNumber: w('cardNumber'),
    expiry: w('expiry'),
    expiryHint: w('expiryHint'),
    cvc: w('cvc'),
    cvcHint: w('cvcHint'),
    pay: w('pay'),
    payAmount: (amount: string) => w('payAmount', { amount }),
    cancel: w('cancel'),
    /** The link to the merchant's terms of an offer that sets none of its own words (docs/back-office.md#merchant-parameters-of-the-original-interface). */
    gtu: w('gtu'),
    sharedExplain: (deadline: string) => w('sharedExplain', { deadline }),
    payHeading: w('payHeading'),
    chargedNow: (amount: string) => w('chargedNow', { amount }),
    heldUntil: (amount: string, deadline: string) => w('heldUntil', { amount, deadline }),
    authorise: (amount: string, date: string) => w('authorise', { amount, date }),
    creditTitle: credit('title'),
    amountFinanced: credit('amountFinanced'),
    creditCost: credit('cost'),
    totalDue: credit('totalDue'),
    fixedApr: credit('fixedApr'),
    creditWarning: credit('warning'),
    creditLender: (lender: string) => credit('lender', { lender }),
    creditWithdrawal: (days: number) => credit('withdrawal', { days }),
    taeg: (rate: string) => credit('apr', { rate }),
    amountFeesIncluded: w('amountFeesIncluded'),
    /** What follows a label before its value: `:` in English, ` :` (a no-break space first) in French. */
    colon: w('colon'),
    errorTitle: w('errorTitle'),
    errorPrefix: w('errorPrefix'),
    fieldErrors: WORDS.group(lang, 'fieldErrors'),
    friendLegend: (n: number) => w('friendLegend', { n }),
    friendContactError: (n: number) => w('friendContactError', { n }),
    friendShareError: (n: number) => w('friendShareError', { n }),
    language: w('language'),
    potFriend: w('potFriend'),
    potShare: w('potShare'),
    potStatus: w('potStatus'),
    pageTitles: WORDS.group(lang, 'pageTitles'),
    installmentsExplain: (n: number, withFees: boolean) => w('installmentsExplain', { n, withFees: yes(withFees) }),
    deferredExplain: (date: string) => w('deferredExplain', { date }),
    downPaymentExplain: (deposit: string, balance: string, date: string, withFees: boolean) => w('downPaymentExplain', { deposit, balance, date, withFees: yes(withFees) }),
    schedule: w('schedule'),
    dueDate: w('dueDate'),
    today: w('today'),
    amount: w('amount'),
    fees: w('fees'),
    friends: w('friends'),
    friendsHint: w('friendsHint'),
    friendName: w('friendName'),
    /** The leader's own name, asked when the merchant sent none (docs/hosted-payment.md#the-leaders-name). */
    leaderName: w('leaderName'),
    leaderNameHint: w('leaderNameHint'),
    leaderNameError: w('leaderNameError'),
    friendEmail: w('friendEmail'),
    friendPhone: w('friendPhone'),
    friendShare: w('friendShare'),
    addFriend: w('addFriend'),
    splitEvenly: w('splitEvenly'),
    yourShare: w('yourShare'),
    /** By PSP error code; `authentication_unsupported` is `authentication_failed` as the card was registered, before any authentication step: the card has no 3-D Secure (docs/testing-in-the-sandbox.md#test-cards). */
    errors: WORDS.group(lang, 'errors'),
    attemptsLeft: (n: number) => w('attemptsLeft', { n }),
    invalidCard: w('invalidCard'),
    invalidShares: w('invalidShares'),
    invalidFriend: (n: number) => w('invalidFriend', { n }),
    tooManyFriends: (n: number) => w('tooManyFriends', { n }),
    notShared: w('notShared'),
    friendRequired: w('friendRequired'),
    riskRefused: w('riskRefused'),
    inProgress: w('inProgress'),
    confirmingTitle: w('confirmingTitle'),
    confirming: w('confirming'),
    confirmingUpTo: (minutes: number) => w('confirmingUpTo', { minutes }),
    confirmingPause: w('confirmingPause'),
    confirmingResume: w('confirmingResume'),
    confirmingCheck: w('confirmingCheck'),
    offerChanged: w('offerChanged'),
    fallbackIntro: w('fallbackIntro'),
    fallbackLabel: w('fallbackLabel'),
    fallbackPayNow: (amount: string) => w('fallbackPayNow', { amount }),
    fallbackInstallments: (n: number, amount: string, equal: boolean) => w('fallbackInstallments', { n, amount, equal: yes(equal) }),
    fallbackDeferred: (amount: string, date: string) => w('fallbackDeferred', { amount, date }),
    fallbackDownPayment: (deposit: string, date: string) => w('fallbackDownPayment', { deposit, date }),
    switchRefused: { not_offered: w('switchRefused.not_offered'), amount: w('switchRefused.amount') } as Record<'not_offered' | 'amount', string>,
    expiredForm: w('expiredForm'),
    states: WORDS.group(lang, 'states'),
    /** LEADER_PROCESSED as what was done for each kind of plan: a 3x/4x or a deposit is charged, not only authorised. */
    leaderProcessed: WORDS.group(lang, 'leaderProcessed'),
    /** A plan whose installment was refused and is still to collect. */
    overdue: w('overdue'),
    doneCharged: (amount: string) => w('doneCharged', { amount }),
    doneTitle: w('doneTitle'),
    doneShared: w('doneShared'),
    doneSuccessful: w('doneSuccessful'),
    doneFailed: w('doneFailed'),
    expiredPurchase: w('expiredPurchase'),
    pot: w('pot'),
    pledgePaid: w('pledgePaid'),
    pledgeWaiting: w('pledgeWaiting'),
    pledgeClosed: w('pledgeClosed'),
    backToShop: w('backToShop'),
    resultHeading: w('resultHeading'),
    resultCharged: w('resultCharged'),
    resultHeld: w('resultHeld'),
    resultHeldUntil: (date: string) => w('resultHeldUntil', { date }),
    resultChargedOn: (date: string) => w('resultChargedOn', { date }),
    resultRest: w('resultRest'),
    resultPotCloses: w('resultPotCloses'),
    resultRestExplain: (rest: string, deadline: string) => w('resultRestExplain', { rest, deadline }),
    resultNext: w('resultNext'),
    resultNothingMore: w('resultNothingMore'),
    pledgeCharged: w('pledgeCharged'),
    pledgeNothingMore: w('pledgeNothingMore'),
    // Refunds: a partly refunded payment is still a payment; its refund and the net are told beside it.
    resultRefunded: w('resultRefunded'),
    resultNet: w('resultNet'),
    resultPayments: w('resultPayments'),
    resultPayment: w('resultPayment'),
    resultPaymentDate: w('resultPaymentDate'),
    resultPaymentCharged: w('resultPaymentCharged'),
    resultPaymentRefunded: w('resultPaymentRefunded'),
    resultPaymentNet: w('resultPaymentNet'),
    resultPurposes: WORDS.group(lang, 'resultPurposes'),
    /** A down payment's payments (docs/schedules.md#down-payment), by purpose. */
    resultDownPaymentPurposes: WORDS.group(lang, 'resultDownPaymentPurposes'),
    // Pledger page
    pledgeTitle: (inviter: string) => w('pledgeTitle', { inviter }),
    /** The heading once the share is paid: no longer an invitation. */
    pledgePaidTitle: (inviter: string) => w('pledgePaidTitle', { inviter }),
    pledgeFor: (title: string, merchant: string) => w('pledgeFor', { title, merchant }),
    pledgeShare: w('pledgeShare'),
    pledgeDeadline: (date: string) => w('pledgeDeadline', { date }),
    pledgeThanks: w('pledgeThanks'),
    pledgeClosedText: w('pledgeClosedText'),
    pledgeFullText: w('pledgeFullText'),
    pledgeNotFound: w('pledgeNotFound'),
    directRefusedTitle: w('directRefusedTitle'),
    directRefused: w('directRefused'),
    directRefusedDetail: w('directRefusedDetail'),
    directPaidTitle: w('directPaidTitle'),
    directPaid: w('directPaid'),
    /** The page that takes the shopper to their bank's 3-D Secure check (challenge-relay-page.ts). */
    relay: { title: w('relay.title'), intro: w('relay.intro'), go: w('relay.go'), gone: w('relay.gone'), goneTitle: w('relay.goneTitle') },
  };
}

export type Texts = ReturnType<typeof texts>;

/** The hosted pages' words by language, each language's built on its first page. */
export const TEXT = perLanguage(texts);

/**
 * A purchase's state as its shopper reads it (v1 state): LEADER_PROCESSED says what was done for
 * its kind of plan (a 3x/4x's first installment and a deposit are charged; a deferred payment or a
 * pot's hold is authorised), and "payment overdue" while a refused installment is still to collect.
 */
export function stateText(t: Texts, v1State: string, offerType?: string, overdue = false): string {
  if (v1State === 'LEADER_PROCESSED') {
    if (overdue) return t.overdue;
    const plan = offerType ? t.leaderProcessed[offerType] : undefined;
    if (plan) return plan;
  }
  return t.states[v1State] ?? v1State;
}
