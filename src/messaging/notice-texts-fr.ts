import type { NOTICE_TEXT_EN } from './notice-texts-en.ts';
import { NBSP } from './templates.ts';

/** The words of the receipts and notices to shoppers in French: the same keys as `notice-texts-en.ts`. */

const quote = (s: string) => `«${NBSP}${s}${NBSP}»`;
/** The SMS's ` pour "<title>"`, nothing when the title was left out to fit. */
const forTitle = (t: string) => (t ? ` pour "${t}"` : '');

export const NOTICE_TEXT_FR: typeof NOTICE_TEXT_EN = {
  what: (title, i) => (i.balance ? `le solde de ${quote(title)}` : i.count === 1 ? `votre achat ${quote(title)}` : `l’échéance ${i.index + 1} sur ${i.count} de ${quote(title)}`),
  yourCard: (brand, last4) => `votre carte ${brand} se terminant par ${last4}`,
  anyCard: 'votre carte',
  cardLabel: (brand, last4) => `${brand} se terminant par ${last4}`,
  cardBrand: 'Carte',
  seePurchase: 'Voir votre achat',
  space: 'Votre espace Chipin (ce que vous devez, quand, vos reçus)',
  charged: 'Débité',
  chargedSubject: (merchant, amount, title) => `${merchant}${NBSP}: ${amount} débités pour ${title}`,
  paidInFull: 'Votre achat est entièrement payé. Rien d’autre ne sera débité.',
  leaderReceipt: {
    subject: (merchant, title) => `${merchant}${NBSP}: confirmation de paiement pour ${title}`,
    thanks: (title, amount, merchant) => `Merci${NBSP}: votre paiement pour ${quote(title)} (${amount}) chez ${merchant} est enregistré.`,
    today: 'Aujourd’hui',
    held: 'Réservé, non débité',
    card: 'Carte',
    nextInstallments: (card) => `Les échéances suivantes seront débitées sur ${card} aux dates ci-dessus. Nous vous écrirons quelques jours avant chacune.`,
    balance: (balance, card, date) => `Le solde de ${balance} sera débité sur ${card} le ${date}. Nous vous écrirons quelques jours avant.`,
    deferred: (total, card, date) => `Rien n’a été débité aujourd’hui. ${total} seront débités sur ${card} le ${date}. Nous vous écrirons quelques jours avant.`,
    friends: (n) => `${n} proche${n > 1 ? 's' : ''}`,
    pot: (friends, pledged, deadline, card, fromHold) =>
      `Vous avez invité ${friends} à verser ${pledged} au total avant le ${deadline}. Ce qu’ils n’auront pas versé à cette date sera débité sur ${card}${fromHold ? ', à partir du montant réservé' : ''}${NBSP}; ce qui n’est pas utilisé est libéré.`,
  },
  pledgeReceipt: {
    subject: (merchant, share, title) => `${merchant}${NBSP}: votre part de ${share} pour ${title} est réglée`,
    aFriend: 'un proche',
    thanks: (share, card, title, merchant, amount, inviter) =>
      `Merci${NBSP}: ${share} ont été débités sur ${card} pour votre part de ${quote(title)} chez ${merchant} (total ${amount}), dans la cagnotte de ${inviter}.`,
    potOpen: (deadline, left) => `La cagnotte se termine le ${deadline}${NBSP}; il reste ${left} à réunir. Rien d’autre ne vous sera débité.`,
    potComplete: `La cagnotte est complète${NBSP}: l’achat est payé. Rien d’autre ne vous sera débité.`,
    seePot: 'Voir la cagnotte',
  },
  installmentReceipt: {
    balanceSubject: (merchant, title) => `${merchant}${NBSP}: solde réglé pour ${title}`,
    subject: (merchant, n, count, title) => `${merchant}${NBSP}: échéance ${n} sur ${count} réglée pour ${title}`,
    charged: (amount, card, what, merchant) => `${amount} ont été débités sur ${card} pour ${what} chez ${merchant}.`,
    next: (amount, date) => `Prochaine échéance${NBSP}: ${amount} le ${date}. Nous vous écrirons quelques jours avant.`,
  },
  precharge: {
    subject: (merchant, amount, date, title) => `${merchant}${NBSP}: ${amount} seront débités le ${date} pour ${title}`,
    coming: (date, amount, card, what, merchant) => `Le ${date}, ${amount} seront débités sur ${card} pour ${what} chez ${merchant}, comme convenu lors de votre paiement.`,
    next: 'Assurez-vous que votre carte pourra être débitée ce jour-là. Vous n’avez rien d’autre à faire.',
  },
  chargeFailed: {
    subject: (merchant, amount, title) => `${merchant}${NBSP}: le paiement de ${amount} pour ${title} a été refusé`,
    refused: (amount, card, what, merchant, due) => `Nous n’avons pas pu débiter ${amount} sur ${card} pour ${what} chez ${merchant} (prévu le ${due}).`,
    retry: (date) => `Nous réessaierons le ${date}. Assurez-vous d’ici là que votre carte peut être débitée.`,
    last: (merchant) => `C’était la dernière tentative${NBSP}: le paiement est arrêté et l’achat a échoué. ${merchant} en est informé et pourra vous contacter.`,
    payFromSpace: 'Vous pouvez aussi payer maintenant, ou changer la carte débitée, depuis votre espace.',
    payAction: 'Payer maintenant ou changer de carte',
  },
  potComplete: {
    subject: (merchant, title) => `${merchant}${NBSP}: la cagnotte pour ${title} est complète`,
    complete: (title, amount, merchant) =>
      `Vos proches ont versé leurs parts${NBSP}: la cagnotte pour ${quote(title)} (${amount}) chez ${merchant} est complète et l’achat est payé.`,
    released: (released, card) => `Les ${released} réservés en garantie sur ${card} sont libérés${NBSP}: rien d’autre ne sera débité.`,
    nothingMore: (card) => `Rien d’autre ne sera débité sur ${card}.`,
  },
  holdRenewalFailed: {
    subject: (merchant, held) => `${merchant}${NBSP}: la réservation de ${held} sur votre carte n’a pas pu être renouvelée`,
    refused: (title, amount, card, held, due, lapses) =>
      `Pour ${quote(title)} (${amount}), ${card} garantit ${held} jusqu’au ${due}. Votre banque a refusé de renouveler cette réservation, qui prend fin le ${lapses}.`,
    next: (due, card) => `Le ${due}, ce qui sera dû sera débité sur ${card}. Assurez-vous d’ici là que votre carte peut être débitée, ou changez-la depuis votre espace.`,
  },
  restFailed: {
    subject: (merchant, title) => `${merchant}${NBSP}: la cagnotte pour ${title} n’a pas pu être complétée`,
    refused: (title, amount, rest, card) =>
      `La cagnotte pour ${quote(title)} (${amount}) s’est terminée avec ${rest} non couverts par vos proches, et nous n’avons pas pu débiter ${rest} sur ${card}.`,
    next: (merchant) => `L’achat a donc échoué et ce qui restait réservé sur votre carte est libéré. ${merchant} en est informé.`,
  },
  restCharged: {
    charged: (title, amount, merchant, rest, card, fromHold) =>
      `La cagnotte pour ${quote(title)} (${amount}) chez ${merchant} s’est terminée avec ${rest} non couverts par vos proches${NBSP}: ${rest} ont été débités sur ${card}${fromHold ? ', à partir du montant réservé' : ''}, comme prévu lors de votre paiement.`,
    yourCard: 'Votre carte',
    chargedNow: 'Débité maintenant',
    chargedInAll: 'Débité en tout pour cet achat',
    next: `L’achat est payé. Ce qui restait réservé sur votre carte est libéré${NBSP}; rien d’autre ne sera débité.`,
  },
  refund: {
    refundedSubject: (merchant, back, title) => `${merchant}${NBSP}: ${back} remboursés pour ${title}`,
    loweredSubject: (merchant, less, title) => `${merchant}${NBSP}: ${less} de moins à payer pour ${title}`,
    byMerchant: (merchant, back, title, card) => `${merchant} vous rembourse ${back} sur votre paiement pour ${quote(title)}${NBSP}: ils sont reversés sur ${card}.`,
    givenBack: (title, merchant, back, card) =>
      `Votre paiement pour ${quote(title)} chez ${merchant} est arrivé alors qu’il n’était plus attendu (la cagnotte était close ou l’achat n’était plus à payer)${NBSP}: les ${back} débités sont reversés sur ${card}.`,
    loweredToo: (less) => `Ce remboursement réduit aussi de ${less} ce qu’il vous reste à payer.`,
    loweredOnly: (merchant, less, title, card) =>
      `${merchant} vous rembourse ${less} sur votre achat ${quote(title)} en réduisant ce qu’il vous reste à payer${NBSP}: rien n’est reversé sur ${card}, car ce montant n’avait pas encore été débité.`,
    remaining: 'Ce qu’il vous reste à payer',
    payments: 'Vos paiements pour cet achat',
    refunded: 'Remboursé',
    net: 'Net débité',
    nothingMore: 'Rien d’autre ne sera débité pour cet achat.',
    statement: 'Le remboursement peut mettre quelques jours à apparaître sur votre relevé.',
  },
  sms: {
    pledgeReceipt: {
      potOpen: (left, deadline) => `Il reste ${left} à réunir avant le ${deadline}. Rien d'autre ne vous sera débité.`,
      potComplete: "La cagnotte est complète. Rien d'autre ne vous sera débité.",
      paid: (opening, thanks, share, t, after) => `${opening} ${thanks ? 'merci, v' : 'V'}otre part de ${share}${forTitle(t)} est payée. ${after}`,
    },
    potComplete: {
      released: (released) => `Les ${released} bloqués sont libérés, rien d'autre ne sera débité.`,
      nothingMore: "Rien d'autre ne sera débité.",
      complete: (opening, t, after) => `${opening} vos proches ont complété la cagnotte${forTitle(t)}, l'achat est payé. ${after}`,
    },
    restCharged: (opening, t, rest) =>
      `${opening} la cagnotte${forTitle(t)} est close, ${rest} non couverts ont été débités sur votre carte. L'achat est payé, rien d'autre ne sera débité.`,
    card: (last4) => `votre carte (fin ${last4})`,
    part: (t, i) =>
      i.balance ? ` le solde${t ? ` de "${t}"` : ''}` : i.count === 1 ? (t ? ` "${t}"` : ' votre achat') : ` l'échéance ${i.index + 1}/${i.count}${t ? ` de "${t}"` : ''}`,
    installmentReceipt: {
      next: (amount, date) => `Prochaine : ${amount} le ${date}.`,
      paidInFull: 'Achat entièrement payé.',
      charged: (opening, amount, card, part, after) => `${opening} ${amount} débités sur ${card} pour${part}. ${after}`,
    },
    precharge: (opening, amount, card, date, part) => `${opening} ${amount} seront débités sur ${card} le ${date} pour${part}.`,
    chargeFailed: {
      retry: (date) => `Nouvel essai le ${date}.`,
      last: "C'était le dernier essai : l'achat a échoué.",
      refused: (opening, amount, card, part, after) => `${opening} ${amount} refusés par ${card} pour${part}. ${after}`,
    },
    holdRenewalFailed: (opening, held, t, due) =>
      `${opening} votre banque a refusé de renouveler la réservation de ${held}${forTitle(t)}. Le ${due}, le dû sera débité sur votre carte.`,
    restFailed: (opening, t, rest) =>
      `${opening} la cagnotte${forTitle(t)} est close, ${rest} non couverts ont été refusés par votre carte. L'achat a échoué, la réservation est libérée.`,
    refund: {
      next: (amount, date) => ` Prochain débit : ${amount} le ${date}.`,
      nothingMore: ' Plus rien à payer.',
      refunded: (opening, back, t, net) => `${opening} ${back} remboursés sur votre carte${forTitle(t)}. Net débité : ${net}.`,
      lessToPay: (less) => `${less} de moins à payer`,
      loweredOnly: (opening, less, t) => `${opening} ${less} de moins à payer${forTitle(t)}.`,
    },
  },
};
