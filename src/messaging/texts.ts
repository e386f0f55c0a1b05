import { Catalogue, perLanguage, type KeyOf, type Values } from '../i18n/catalogue.ts';
import de from '../i18n/catalogues/messages/de.json' with { type: 'json' };
import en from '../i18n/catalogues/messages/en.json' with { type: 'json' };
import es from '../i18n/catalogues/messages/es.json' with { type: 'json' };
import fr from '../i18n/catalogues/messages/fr.json' with { type: 'json' };
import it from '../i18n/catalogues/messages/it.json' with { type: 'json' };
import nl from '../i18n/catalogues/messages/nl.json' with { type: 'json' };
import type { Lang } from '../i18n/lang.ts';
import type { InstallmentRef } from './messenger.ts';

/**
 * The words of every e-mail and SMS to a shopper (docs/messaging.md#texts-and-languages): the
 * purchase link, the friends' invitations and reminders, the receipts and notices, the shopper
 * space's sign-in e-mail and SMS. From their catalogues (`src/i18n/catalogues/messages/<lang>.json`),
 * asked for by meaning with the values a sentence takes (amounts and dates formatted in the
 * message's language by the caller), never joining pieces of one. The credit's legal words are
 * the `credit` catalogue's, shared with the hosted pages (src/i18n/credit-words.ts).
 *
 * A few values are noun phrases the catalogue words too (`what`: "installment 2 of 3 of …",
 * `card`: "your Visa card ending 4242", an SMS's `part`): each language writes them in the form
 * the sentences taking them need (German's card in the dative, after `von`/`auf`/`mit`).
 */
const WORDS = new Catalogue<KeyOf<typeof en>>('messages', { de, en, es, fr, it, nl });

/** `yes` or `other`, for a catalogue's select. */
const yes = (flag: boolean) => (flag ? 'yes' : 'other');

function texts(lang: Lang) {
  const w = (key: KeyOf<typeof en>, values?: Values) => WORDS.text(lang, key, values);
  /** An SMS's sentence that names the purchase's title when there is room for it (`title` empty: left out to fit). */
  const titled = (key: KeyOf<typeof en>, title: string, values: Values = {}) => w(key, { ...values, title, titled: yes(title !== '') });
  return {
    greeting: (name: string | undefined) => (name ? w('greeting.named', { name }) : w('greeting.anonymous')),
    signature: (merchant: string) => w('signature', { merchant }),
    /** What follows a label before its value or its link (`:`, French `\u00a0:`). */
    colon: w('colon'),
    schedule: w('schedule'),
    today: w('today'),
    credit: w('credit'),
    link: {
      subject: (merchant: string, title: string) => w('link.subject', { merchant, title }),
      intro: (merchant: string, title: string, amount: string) => w('link.intro', { merchant, title, amount }),
      invite: w('link.invite'),
      cta: w('link.cta'),
      ignore: w('link.ignore'),
      installments: {
        intro: (v: { merchant: string; title: string; amount: string; n: number; first: string; fees: string }) => w('link.installments.intro', v),
        invite: (first: string) => w('link.installments.invite', { first }),
        cta: (first: string) => w('link.installments.cta', { first }),
      },
      deferred: {
        intro: (v: { merchant: string; title: string; amount: string; total: string; date: string }) => w('link.deferred.intro', v),
        invite: (total: string, date: string) => w('link.deferred.invite', { total, date }),
        cta: (total: string) => w('link.deferred.cta', { total }),
      },
      downPayment: {
        /** `fees` undefined: the deposit has none; `credit`: paying the balance later is a credit. */
        intro: (v: { merchant: string; title: string; amount: string; deposit: string; balance: string; date: string; fees: string | undefined; credit: boolean }) =>
          w('link.downPayment.intro', { ...v, fees: v.fees ?? '', withFees: yes(v.fees !== undefined), credit: yes(v.credit) }),
        invite: (deposit: string) => w('link.downPayment.invite', { deposit }),
        cta: (deposit: string) => w('link.downPayment.cta', { deposit }),
      },
    },
    pledge: {
      /** Stands for an inviter whose name is empty. */
      someone: w('pledge.someone'),
      subject: (reminder: boolean, v: { inviter: string; share: string; title: string; deadline: string }) =>
        reminder ? w('pledge.reminder.subject', v) : w('pledge.invitation.subject', v),
      intro: (reminder: boolean, v: { inviter: string; share: string; title: string; merchant: string; amount: string }) =>
        reminder ? w('pledge.reminder.intro', v) : w('pledge.invitation.intro', v),
      /** The line above the link. */
      invite: (reminder: boolean, deadline: string) => (reminder ? w('pledge.reminder.invite', { deadline }) : w('pledge.invitation.invite', { deadline })),
      cta: w('pledge.cta'),
      ignore: w('pledge.ignore'),
    },
    notice: {
      /** `installment 2 of 3 of "<title>"`, `the balance of "<title>"`, or `your purchase "<title>"` for a deferred payment. */
      what: (title: string, i: InstallmentRef) =>
        i.balance
          ? w('notice.what.balance', { title })
          : i.count === 1
            ? w('notice.what.purchase', { title })
            : w('notice.what.installment', { title, n: i.index + 1, count: i.count }),
      /** `your Visa card ending 4242`; `brand` empty when unknown. */
      yourCard: (brand: string, last4: string) => (brand ? w('notice.yourCard.brand', { brand, last4 }) : w('notice.yourCard.noBrand', { last4 })),
      anyCard: w('notice.anyCard'),
      /** `Visa ending 4242`. */
      cardLabel: (brand: string, last4: string) => w('notice.cardLabel', { brand, last4 }),
      cardBrand: w('notice.cardBrand'),
      seePurchase: w('notice.seePurchase'),
      space: w('notice.space'),
      charged: w('notice.charged'),
      chargedSubject: (merchant: string, amount: string, title: string) => w('notice.chargedSubject', { merchant, amount, title }),
      paidInFull: w('notice.paidInFull'),
      leaderReceipt: {
        subject: (merchant: string, title: string) => w('notice.leaderReceipt.subject', { merchant, title }),
        thanks: (title: string, amount: string, merchant: string) => w('notice.leaderReceipt.thanks', { title, amount, merchant }),
        today: w('notice.leaderReceipt.today'),
        held: w('notice.leaderReceipt.held'),
        card: w('notice.leaderReceipt.card'),
        nextInstallments: (card: string) => w('notice.leaderReceipt.nextInstallments', { card }),
        balance: (balance: string, card: string, date: string) => w('notice.leaderReceipt.balance', { balance, card, date }),
        deferred: (total: string, card: string, date: string) => w('notice.leaderReceipt.deferred', { total, card, date }),
        pot: (friends: number, pledged: string, deadline: string, card: string, fromHold: boolean) =>
          w('notice.leaderReceipt.pot', { friends, pledged, deadline, card, fromHold: yes(fromHold) }),
      },
      pledgeReceipt: {
        subject: (merchant: string, share: string, title: string) => w('notice.pledgeReceipt.subject', { merchant, share, title }),
        aFriend: w('notice.pledgeReceipt.aFriend'),
        thanks: (v: { share: string; card: string; title: string; merchant: string; amount: string; inviter: string }) => w('notice.pledgeReceipt.thanks', v),
        potOpen: (deadline: string, left: string) => w('notice.pledgeReceipt.potOpen', { deadline, left }),
        potComplete: w('notice.pledgeReceipt.potComplete'),
        seePot: w('notice.pledgeReceipt.seePot'),
      },
      installmentReceipt: {
        balanceSubject: (merchant: string, title: string) => w('notice.installmentReceipt.balanceSubject', { merchant, title }),
        subject: (merchant: string, n: number, count: number, title: string) => w('notice.installmentReceipt.subject', { merchant, n, count, title }),
        charged: (amount: string, card: string, what: string, merchant: string) => w('notice.installmentReceipt.charged', { amount, card, what, merchant }),
        next: (amount: string, date: string) => w('notice.installmentReceipt.next', { amount, date }),
      },
      precharge: {
        subject: (merchant: string, amount: string, date: string, title: string) => w('notice.precharge.subject', { merchant, amount, date, title }),
        coming: (date: string, amount: string, card: string, what: string, merchant: string) => w('notice.precharge.coming', { date, amount, card, what, merchant }),
        next: w('notice.precharge.next'),
      },
      chargeFailed: {
        subject: (merchant: string, amount: string, title: string) => w('notice.chargeFailed.subject', { merchant, amount, title }),
        refused: (amount: string, card: string, what: string, merchant: string, due: string) => w('notice.chargeFailed.refused', { amount, card, what, merchant, due }),
        retry: (date: string) => w('notice.chargeFailed.retry', { date }),
        last: (merchant: string) => w('notice.chargeFailed.last', { merchant }),
        payFromSpace: w('notice.chargeFailed.payFromSpace'),
        payAction: w('notice.chargeFailed.payAction'),
      },
      potComplete: {
        subject: (merchant: string, title: string) => w('notice.potComplete.subject', { merchant, title }),
        complete: (title: string, amount: string, merchant: string) => w('notice.potComplete.complete', { title, amount, merchant }),
        released: (released: string, card: string) => w('notice.potComplete.released', { released, card }),
        nothingMore: (card: string) => w('notice.potComplete.nothingMore', { card }),
      },
      holdRenewalFailed: {
        subject: (merchant: string, held: string) => w('notice.holdRenewalFailed.subject', { merchant, held }),
        refused: (v: { title: string; amount: string; card: string; held: string; due: string; lapses: string }) => w('notice.holdRenewalFailed.refused', v),
        next: (due: string, card: string) => w('notice.holdRenewalFailed.next', { due, card }),
      },
      restFailed: {
        subject: (merchant: string, title: string) => w('notice.restFailed.subject', { merchant, title }),
        refused: (title: string, amount: string, rest: string, card: string) => w('notice.restFailed.refused', { title, amount, rest, card }),
        next: (merchant: string) => w('notice.restFailed.next', { merchant }),
      },
      restCharged: {
        charged: (v: { title: string; amount: string; merchant: string; rest: string; card: string; fromHold: boolean }) =>
          w('notice.restCharged.charged', { ...v, fromHold: yes(v.fromHold) }),
        yourCard: w('notice.restCharged.yourCard'),
        chargedNow: w('notice.restCharged.chargedNow'),
        chargedInAll: w('notice.restCharged.chargedInAll'),
        next: w('notice.restCharged.next'),
      },
      refund: {
        refundedSubject: (merchant: string, back: string, title: string) => w('notice.refund.refundedSubject', { merchant, back, title }),
        loweredSubject: (merchant: string, less: string, title: string) => w('notice.refund.loweredSubject', { merchant, less, title }),
        byMerchant: (merchant: string, back: string, title: string, card: string) => w('notice.refund.byMerchant', { merchant, back, title, card }),
        givenBack: (title: string, merchant: string, back: string, card: string) => w('notice.refund.givenBack', { title, merchant, back, card }),
        loweredToo: (less: string) => w('notice.refund.loweredToo', { less }),
        loweredOnly: (merchant: string, less: string, title: string, card: string) => w('notice.refund.loweredOnly', { merchant, less, title, card }),
        remaining: w('notice.refund.remaining'),
        payments: w('notice.refund.payments'),
        refunded: w('notice.refund.refunded'),
        net: w('notice.refund.net'),
        nothingMore: w('notice.refund.nothingMore'),
        statement: w('notice.refund.statement'),
      },
    },
    signIn: {
      subject: w('signIn.subject'),
      open: w('signIn.open'),
      once: (minutes: number) => w('signIn.once', { minutes }),
      ignore: w('signIn.ignore'),
      sms: (code: string, minutes: number) => w('signIn.sms', { code, minutes }),
    },
    /**
     * The SMS, in GSM-7 once made safe (templates.ts's smsSafe): each opens with `opening` (who
     * sends it, for which shop), and takes `title` empty when it was left out to fit.
     */
    sms: {
      opening: (merchant: string) => w('sms.opening', { merchant }),
      link: {
        shared: (v: { opening: string; title: string; amount: string; url: string }) => titled('sms.link.shared', v.title, v),
        installments: (v: { opening: string; title: string; amount: string; n: number; first: string; fees: string; apr: string; url: string }) =>
          v.title ? w('sms.link.installments', v) : w('sms.link.installmentsCompact', v),
        downPayment: (v: { opening: string; title: string; amount: string; deposit: string; fees: string | undefined; apr: string; balance: string; date: string; url: string }) =>
          w(v.title ? 'sms.link.downPayment' : 'sms.link.downPaymentCompact', { ...v, fees: v.fees ?? '', withFees: yes(v.fees !== undefined) }),
        deferred: (v: { opening: string; title: string; amount: string; total: string; date: string; url: string }) =>
          v.title ? w('sms.link.deferred', v) : w('sms.link.deferredCompact', v),
      },
      pledge: {
        full: (reminder: boolean, v: { opening: string; inviter: string; share: string; title: string; deadline: string; url: string }) =>
          titled(reminder ? 'sms.pledge.reminder' : 'sms.pledge.invitation', v.title, v),
        compact: (reminder: boolean, v: { opening: string; inviter: string; share: string; deadline: string; url: string }) =>
          w(reminder ? 'sms.pledge.reminderCompact' : 'sms.pledge.invitationCompact', v),
      },
      /** `your card ending 4242`. */
      card: (last4: string) => w('sms.card', { last4 }),
      /** `installment 2/3 of "<title>"`, `the balance of "<title>"`, or `"<title>"` alone for a deferred payment. */
      part: (title: string, i: InstallmentRef) =>
        i.balance
          ? titled('sms.part.balance', title)
          : i.count === 1
            ? titled('sms.part.purchase', title)
            : titled('sms.part.installment', title, { n: i.index + 1, count: i.count }),
      pledgeReceipt: {
        paid: (opening: string, thanks: boolean, share: string, title: string) => titled('sms.pledgeReceipt.paid', title, { opening, share, thanks: yes(thanks) }),
        potOpen: (left: string, deadline: string) => w('sms.pledgeReceipt.potOpen', { left, deadline }),
        potComplete: w('sms.pledgeReceipt.potComplete'),
      },
      potComplete: {
        complete: (opening: string, title: string) => titled('sms.potComplete.complete', title, { opening }),
        released: (released: string) => w('sms.potComplete.released', { released }),
        nothingMore: w('sms.potComplete.nothingMore'),
      },
      restCharged: (opening: string, title: string, rest: string) => titled('sms.restCharged', title, { opening, rest }),
      installmentReceipt: {
        charged: (opening: string, amount: string, card: string, part: string) => w('sms.installmentReceipt.charged', { opening, amount, card, part }),
        next: (amount: string, date: string) => w('sms.installmentReceipt.next', { amount, date }),
        paidInFull: w('sms.installmentReceipt.paidInFull'),
      },
      precharge: (opening: string, amount: string, card: string, date: string, part: string) => w('sms.precharge', { opening, amount, card, date, part }),
      chargeFailed: {
        refused: (opening: string, amount: string, card: string, part: string) => w('sms.chargeFailed.refused', { opening, amount, card, part }),
        retry: (date: string) => w('sms.chargeFailed.retry', { date }),
        last: w('sms.chargeFailed.last'),
      },
      holdRenewalFailed: (opening: string, held: string, title: string, due: string) => titled('sms.holdRenewalFailed', title, { opening, held, due }),
      restFailed: (opening: string, title: string, rest: string) => titled('sms.restFailed', title, { opening, rest }),
      refund: {
        refunded: (opening: string, back: string, title: string, net: string) => titled('sms.refund.refunded', title, { opening, back, net }),
        lessToPay: (less: string) => w('sms.refund.lessToPay', { less }),
        loweredOnly: (opening: string, less: string, title: string) => titled('sms.refund.loweredOnly', title, { opening, less }),
        next: (amount: string, date: string) => w('sms.refund.next', { amount, date }),
        nothingMore: w('sms.refund.nothingMore'),
      },
    },
  };
}

/** The words of the messages in one language. */
export type MessageTexts = ReturnType<typeof texts>;

/** The messages' words by language, each language's built on its first message. */
export const MESSAGE_TEXT = perLanguage(texts);
