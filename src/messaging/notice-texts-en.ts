import type { InstallmentRef } from './messenger.ts';

/**
 * The words of the receipts and notices to shoppers in English: their e-mails (`notice-templates.ts`)
 * and their SMS (`notice-sms.ts`). The French (`notice-texts-fr.ts`) has the same keys.
 */

const quote = (s: string) => `"${s}"`;
/** The SMS's ` for "<title>"`, nothing when the title was left out to fit. */
const forTitle = (t: string) => (t ? ` for "${t}"` : '');

export const NOTICE_TEXT_EN = {
  /** `installment 2 of 3 of "<title>"`, `the balance of "<title>"`, or `your purchase "<title>"` for a deferred payment. */
  what: (title: string, i: InstallmentRef) =>
    i.balance ? `the balance of ${quote(title)}` : i.count === 1 ? `your purchase ${quote(title)}` : `installment ${i.index + 1} of ${i.count} of ${quote(title)}`,
  yourCard: (brand: string, last4: string) => `your ${brand} card ending ${last4}`,
  anyCard: 'your card',
  /** `Visa ending 4242`. */
  cardLabel: (brand: string, last4: string) => `${brand} ending ${last4}`,
  cardBrand: 'Card',
  seePurchase: 'See your purchase',
  space: 'Your Chipin space (what you owe, when, your receipts)',
  charged: 'Charged',
  chargedSubject: (merchant: string, amount: string, title: string) => `${merchant}: ${amount} charged for ${title}`,
  paidInFull: 'Your purchase is paid in full. Nothing more will be charged.',
  leaderReceipt: {
    subject: (merchant: string, title: string) => `${merchant}: payment confirmation for ${title}`,
    thanks: (title: string, amount: string, merchant: string) => `Thank you: your payment for ${quote(title)} (${amount}) at ${merchant} is recorded.`,
    today: 'Today',
    held: 'Held, not charged',
    card: 'Card',
    nextInstallments: (card: string) => `The next installments will be charged to ${card} on the dates above. We will e-mail you a few days before each one.`,
    balance: (balance: string, card: string, date: string) => `The balance of ${balance} will be charged to ${card} on ${date}. We will e-mail you a few days before.`,
    deferred: (total: string, card: string, date: string) => `Nothing was charged today. ${total} will be charged to ${card} on ${date}. We will e-mail you a few days before.`,
    friends: (n: number) => `${n} friend${n > 1 ? 's' : ''}`,
    pot: (friends: string, pledged: string, deadline: string, card: string, fromHold: boolean) =>
      `You invited ${friends} to chip in ${pledged} in total before ${deadline}. Whatever they have not paid by then will be charged to ${card}${fromHold ? ', from the amount held' : ''}; whatever is not needed is released.`,
  },
  pledgeReceipt: {
    subject: (merchant: string, share: string, title: string) => `${merchant}: your share of ${share} for ${title} is paid`,
    aFriend: 'a friend',
    thanks: (share: string, card: string, title: string, merchant: string, amount: string, inviter: string) =>
      `Thank you: ${share} was charged to ${card} for your share of ${quote(title)} at ${merchant} (total ${amount}), in ${inviter}'s pot.`,
    potOpen: (deadline: string, left: string) => `The pot closes on ${deadline}; ${left} is still to be collected. Nothing more will be charged to you.`,
    potComplete: 'The pot is complete: the purchase is paid. Nothing more will be charged to you.',
    seePot: 'See the pot',
  },
  installmentReceipt: {
    balanceSubject: (merchant: string, title: string) => `${merchant}: balance paid for ${title}`,
    subject: (merchant: string, n: number, count: number, title: string) => `${merchant}: installment ${n} of ${count} paid for ${title}`,
    charged: (amount: string, card: string, what: string, merchant: string) => `${amount} was charged to ${card} for ${what} at ${merchant}.`,
    next: (amount: string, date: string) => `Next installment: ${amount} on ${date}. We will e-mail you a few days before.`,
  },
  precharge: {
    subject: (merchant: string, amount: string, date: string, title: string) => `${merchant}: ${amount} will be charged on ${date} for ${title}`,
    coming: (date: string, amount: string, card: string, what: string, merchant: string) =>
      `On ${date}, ${amount} will be charged to ${card} for ${what} at ${merchant}, as agreed when you paid.`,
    next: 'Please make sure your card can be charged that day. There is nothing else to do.',
  },
  chargeFailed: {
    subject: (merchant: string, amount: string, title: string) => `${merchant}: the payment of ${amount} for ${title} was refused`,
    refused: (amount: string, card: string, what: string, merchant: string, due: string) => `We could not charge ${amount} to ${card} for ${what} at ${merchant} (due on ${due}).`,
    retry: (date: string) => `We will try again on ${date}. Please make sure your card can be charged by then.`,
    last: (merchant: string) => `That was the last attempt: the payment plan is stopped and the purchase has failed. ${merchant} has been informed and may contact you.`,
    payFromSpace: 'You can also pay now, or change the card to charge, from your space.',
    payAction: 'Pay now or change your card',
  },
  potComplete: {
    subject: (merchant: string, title: string) => `${merchant}: the pot for ${title} is complete`,
    complete: (title: string, amount: string, merchant: string) =>
      `Your friends have paid their shares: the pot for ${quote(title)} (${amount}) at ${merchant} is complete and the purchase is paid.`,
    released: (released: string, card: string) => `The ${released} held as a guarantee on ${card} is released: nothing more will be charged.`,
    nothingMore: (card: string) => `Nothing more will be charged to ${card}.`,
  },
  holdRenewalFailed: {
    subject: (merchant: string, held: string) => `${merchant}: the hold of ${held} on your card could not be renewed`,
    refused: (title: string, amount: string, card: string, held: string, due: string, lapses: string) =>
      `For ${quote(title)} (${amount}), ${card} guarantees ${held} until ${due}. Your bank refused to renew this hold, which ends on ${lapses}.`,
    next: (due: string, card: string) => `On ${due}, what is due will be charged to ${card}. Please make sure your card can be charged by then, or change it from your space.`,
  },
  restFailed: {
    subject: (merchant: string, title: string) => `${merchant}: the pot for ${title} could not be completed`,
    refused: (title: string, amount: string, rest: string, card: string) =>
      `The pot for ${quote(title)} (${amount}) closed with ${rest} not covered by your friends, and we could not charge ${rest} to ${card}.`,
    next: (merchant: string) => `The purchase has therefore failed and whatever was still held on your card is released. ${merchant} has been informed.`,
  },
  restCharged: {
    charged: (title: string, amount: string, merchant: string, rest: string, card: string, fromHold: boolean) =>
      `The pot for ${quote(title)} (${amount}) at ${merchant} closed with ${rest} not covered by your friends: ${rest} was charged to ${card}${fromHold ? ', from the amount held' : ''}, as agreed when you paid.`,
    yourCard: 'Your card',
    chargedNow: 'Charged now',
    chargedInAll: 'Charged in all for this purchase',
    next: 'The purchase is paid. Whatever was still held on your card is released; nothing more will be charged.',
  },
  refund: {
    refundedSubject: (merchant: string, back: string, title: string) => `${merchant}: ${back} refunded for ${title}`,
    loweredSubject: (merchant: string, less: string, title: string) => `${merchant}: ${less} less to pay for ${title}`,
    byMerchant: (merchant: string, back: string, title: string, card: string) =>
      `${merchant} refunded ${back} of your payment for ${quote(title)}: it is on its way back to ${card}.`,
    givenBack: (title: string, merchant: string, back: string, card: string) =>
      `Your payment for ${quote(title)} at ${merchant} came when it was no longer needed (the pot had closed, or the purchase was no longer to pay): the ${back} charged is on its way back to ${card}.`,
    loweredToo: (less: string) => `This refund also takes ${less} off what you still have to pay.`,
    loweredOnly: (merchant: string, less: string, title: string, card: string) =>
      `${merchant} refunded ${less} of your purchase ${quote(title)} by taking it off what you still have to pay: nothing goes back to ${card}, as that money had not been charged yet.`,
    remaining: 'What you still have to pay',
    payments: 'Your payments for this purchase',
    refunded: 'Refunded',
    net: 'Net charged',
    nothingMore: 'Nothing more will be charged for this purchase.',
    statement: 'It may take a few days to appear on your statement.',
  },
  sms: {
    pledgeReceipt: {
      potOpen: (left: string, deadline: string) => `${left} still to collect before ${deadline}. Nothing more will be charged to you.`,
      potComplete: 'The pot is complete. Nothing more will be charged to you.',
      paid: (opening: string, thanks: boolean, share: string, t: string, after: string) =>
        `${opening} ${thanks ? 'thank you, y' : 'Y'}our share of ${share}${forTitle(t)} is paid. ${after}`,
    },
    potComplete: {
      released: (released: string) => `The ${released} held on your card is released, nothing more will be charged.`,
      nothingMore: 'Nothing more will be charged.',
      complete: (opening: string, t: string, after: string) => `${opening} your friends completed the pot${forTitle(t)}, it is paid. ${after}`,
    },
    restCharged: (opening: string, t: string, rest: string) =>
      `${opening} the pot${forTitle(t)} closed, the ${rest} not covered was charged to your card. It is paid, nothing more will be charged.`,
    /** `your card ending 4242`. */
    card: (last4: string) => `your card ending ${last4}`,
    /** ` installment 2/3 of "<title>"`, ` the balance of "<title>"`, or ` "<title>"` alone for a deferred payment. */
    part: (t: string, i: InstallmentRef) =>
      i.balance ? ` the balance${t ? ` of "${t}"` : ''}` : i.count === 1 ? (t ? ` "${t}"` : ' your purchase') : ` installment ${i.index + 1}/${i.count}${t ? ` of "${t}"` : ''}`,
    installmentReceipt: {
      next: (amount: string, date: string) => `Next: ${amount} on ${date}.`,
      paidInFull: 'Paid in full.',
      charged: (opening: string, amount: string, card: string, part: string, after: string) => `${opening} ${amount} charged to ${card} for${part}. ${after}`,
    },
    precharge: (opening: string, amount: string, card: string, date: string, part: string) => `${opening} ${amount} will be charged to ${card} on ${date} for${part}.`,
    chargeFailed: {
      retry: (date: string) => `We will try again on ${date}.`,
      last: 'That was the last try: the purchase failed.',
      refused: (opening: string, amount: string, card: string, part: string, after: string) => `${opening} ${card} refused ${amount} for${part}. ${after}`,
    },
    holdRenewalFailed: (opening: string, held: string, t: string, due: string) =>
      `${opening} your bank refused to renew the hold of ${held}${forTitle(t)}. On ${due}, what is due will be charged to your card.`,
    restFailed: (opening: string, t: string, rest: string) =>
      `${opening} the pot${forTitle(t)} closed, your card refused the ${rest} not covered. The purchase failed, the hold is released.`,
    refund: {
      next: (amount: string, date: string) => ` Next charge: ${amount} on ${date}.`,
      nothingMore: ' Nothing more to pay.',
      refunded: (opening: string, back: string, t: string, net: string) => `${opening} ${back} refunded to your card${forTitle(t)}. Net charged: ${net}.`,
      lessToPay: (less: string) => `${less} less to pay`,
      loweredOnly: (opening: string, less: string, t: string) => `${opening} ${less} less to pay${forTitle(t)}.`,
    },
  },
};
