import { html } from '../html/html.ts';
import { formatDate, formatDateTime, formatMoney } from '../i18n/format.ts';
import { langOf, type Lang } from '../i18n/lang.ts';
import type { InstallmentRef, ShopperNotice, SmsNotice } from './messenger.ts';
import {
  COMMON,
  creditFigures,
  figuresHtml,
  figuresText,
  firstFitting,
  NBSP,
  oneLine,
  planFigures,
  shortenedTitle,
  smsDate,
  smsOpening,
  smsSafe,
  type Figures,
  type PurchaseLinkEmail,
} from './templates.ts';

/**
 * Receipts and notices to shoppers (docs/messaging.md, "E-mails and SMS over a purchase's life"):
 * what was charged, what is held, what comes next. Pure functions, in the purchase's language
 * (fr, else en), every value escaped in the HTML part, untrusted values flattened to one line.
 */

/** The texts of one notice, before layout. */
interface NoticeTexts {
  subject: string;
  paragraphs: string[];
  figures: Figures[];
  /** The line under the figures (what comes next). */
  next: string[];
  /** What the shopper can do about it (a refused installment: pay now, change the card), above `link`. */
  action?: { label: string; url: string };
  link?: { label: string; url: string };
  /** The shopper's space on this purchase: what they owe, when, their receipts. */
  space?: { label: string; url: string };
}

function renderNotice(lang: Lang, greeting: string, signature: string, t: NoticeTexts): PurchaseLinkEmail {
  const colon = lang === 'fr' ? `${NBSP}:` : ':';
  const text = [
    greeting,
    '',
    ...t.paragraphs.flatMap((p) => [p, '']),
    ...t.figures.flatMap((f) => [figuresText(f, lang), '']),
    ...t.next.flatMap((p) => [p, '']),
    ...(t.action ? [`${t.action.label}${colon}`, t.action.url, ''] : []),
    ...(t.link ? [`${t.link.label}${colon}`, t.link.url, ''] : []),
    ...(t.space ? [`${t.space.label}${colon}`, t.space.url, ''] : []),
    '-- ',
    signature,
    '',
  ].join('\n');
  const subject = oneLine(t.subject, 200);
  const markup = html`<!DOCTYPE html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a;background:#ffffff;line-height:1.4">
<main>
<p>${greeting}</p>
${t.paragraphs.map((p) => html`<p>${p}</p>`)}
${t.figures.map(figuresHtml)}
${t.next.map((p) => html`<p>${p}</p>`)}
${t.action ? html`<p><a href="${t.action.url}" style="color:#0b5cad;font-weight:bold">${t.action.label}</a></p>` : ''}
${t.link ? html`<p><a href="${t.link.url}" style="color:#0b5cad">${t.link.label}</a></p>` : ''}
${t.space ? html`<p><a href="${t.space.url}" style="color:#0b5cad">${t.space.label}</a></p>` : ''}
<p style="font-size:13px;color:#555555">${signature}</p>
</main>
</body>
</html>
`.toString();
  return { lang, subject, text, html: markup };
}

interface Values {
  lang: Lang;
  fr: boolean;
  merchant: string;
  title: string;
  amount: string;
  m(cents: number): string;
  date(isoDate: string): string;
  /** `your card ending 4242` / `votre carte Visa se terminant par 4242`. */
  card: string;
}

function values(n: ShopperNotice): Values {
  const lang = langOf(n.language);
  const fr = lang === 'fr';
  const last4 = n.card?.last4.replace(/\D/g, '').slice(-4);
  const brand = n.card ? brandLabel(n.card.brand) : '';
  return {
    lang,
    fr,
    merchant: oneLine(n.merchantName, 100) || 'Chipin',
    title: oneLine(n.title, 150),
    amount: formatMoney(n.amountCents, n.currency, lang),
    m: (cents) => formatMoney(cents, n.currency, lang),
    date: (d) => formatDate(d, lang),
    card: last4
      ? fr
        ? `votre carte ${brand} se terminant par ${last4}`.replace('  ', ' ')
        : `your ${brand} card ending ${last4}`.replace('  ', ' ')
      : fr
        ? 'votre carte'
        : 'your card',
  };
}

/** `visa` → `Visa`; nothing for an unknown brand. */
function brandLabel(brand: string): string {
  const b = oneLine(brand, 20);
  return !b || b.toLowerCase() === 'unknown' ? '' : b.charAt(0).toUpperCase() + b.slice(1);
}

/** `Visa ending 4242` / `Visa se terminant par 4242`. */
function cardLabel(card: { brand: string; last4: string }, fr: boolean): string {
  const last4 = card.last4.replace(/\D/g, '').slice(-4);
  const brand = brandLabel(card.brand) || (fr ? 'Carte' : 'Card');
  return fr ? `${brand} se terminant par ${last4}` : `${brand} ending ${last4}`;
}

const quote = (v: Values, s: string) => (v.fr ? `«${NBSP}${s}${NBSP}»` : `"${s}"`);

/** `installment 2 of 3 of "<title>"`, `the balance of "<title>"`, or `your purchase "<title>"` for a deferred payment. */
function what(v: Values, i: InstallmentRef): string {
  if (i.balance) return v.fr ? `le solde de ${quote(v, v.title)}` : `the balance of ${quote(v, v.title)}`;
  if (i.count === 1) return v.fr ? `votre achat ${quote(v, v.title)}` : `your purchase ${quote(v, v.title)}`;
  return v.fr ? `l'échéance ${i.index + 1} sur ${i.count} de ${quote(v, v.title)}` : `installment ${i.index + 1} of ${i.count} of ${quote(v, v.title)}`;
}

function texts(n: ShopperNotice, v: Values): NoticeTexts {
  const { fr, m } = v;
  const t80 = oneLine(v.title, 80);
  const purchaseLink = { label: fr ? 'Voir votre achat' : 'See your purchase', url: n.url };
  switch (n.kind) {
    case 'leader_receipt': {
      const today: Figures = {
        heading: fr ? "Aujourd'hui" : 'Today',
        rows: [
          ...(n.chargedCents > 0 ? [[fr ? 'Débité' : 'Charged', m(n.chargedCents)] as const] : []),
          ...(n.heldCents > 0 ? [[fr ? 'Réservé, non débité' : 'Held, not charged', m(n.heldCents)] as const] : []),
          ...(n.card ? [[fr ? 'Carte' : 'Card', cardLabel(n.card, fr)] as const] : []),
        ],
      };
      const figures: Figures[] = [today];
      const next: string[] = [];
      const offer = n.offer;
      if (offer.type === 'INSTALLMENTS') {
        figures.push(planFigures(offer.lines, n.currency, v.lang, true), creditFigures(offer.credit, n.currency, v.lang));
        next.push(
          fr
            ? `Les échéances suivantes seront débitées sur ${v.card} aux dates ci-dessus. Nous vous écrirons quelques jours avant chacune.`
            : `The next installments will be charged to ${v.card} on the dates above. We will e-mail you a few days before each one.`,
        );
      } else if (offer.type === 'DOWN_PAYMENT') {
        figures.push(planFigures([offer.deposit, offer.balance], n.currency, v.lang, true));
        if (offer.credit.feesCents > 0) figures.push(creditFigures(offer.credit, n.currency, v.lang));
        const balance = m(offer.balance.amountCents);
        next.push(
          fr
            ? `Le solde de ${balance} sera débité sur ${v.card} le ${v.date(offer.balance.dueDate)}. Nous vous écrirons quelques jours avant.`
            : `The balance of ${balance} will be charged to ${v.card} on ${v.date(offer.balance.dueDate)}. We will e-mail you a few days before.`,
        );
      } else if (offer.type === 'DEFERRED') {
        if (offer.credit.feesCents > 0) figures.push(creditFigures(offer.credit, n.currency, v.lang));
        const total = m(offer.credit.totalDueCents);
        next.push(
          fr
            ? `Rien n'a été débité aujourd'hui. ${total} seront débités sur ${v.card} le ${v.date(offer.dueDate)}. Nous vous écrirons quelques jours avant.`
            : `Nothing was charged today. ${total} will be charged to ${v.card} on ${v.date(offer.dueDate)}. We will e-mail you a few days before.`,
        );
      } else if (n.pot) {
        const deadline = formatDateTime(n.pot.deadline, v.lang, n.timeZone);
        const friends = fr ? `${n.pot.invited} proche${n.pot.invited > 1 ? 's' : ''}` : `${n.pot.invited} friend${n.pot.invited > 1 ? 's' : ''}`;
        next.push(
          fr
            ? `Vous avez invité ${friends} à verser ${m(n.pot.pledgedCents)} au total avant le ${deadline}. Ce qu'ils n'auront pas versé à cette date sera débité sur ${v.card}${n.heldCents > 0 ? ', à partir du montant réservé' : ''}${NBSP}; ce qui n'est pas utilisé est libéré.`
            : `You invited ${friends} to chip in ${m(n.pot.pledgedCents)} in total before ${deadline}. Whatever they have not paid by then will be charged to ${v.card}${n.heldCents > 0 ? ', from the amount held' : ''}; whatever is not needed is released.`,
        );
      } else {
        next.push(fr ? "Votre achat est entièrement payé. Rien d'autre ne sera débité." : 'Your purchase is paid in full. Nothing more will be charged.');
      }
      return {
        subject: fr ? `${v.merchant}${NBSP}: confirmation de paiement pour ${t80}` : `${v.merchant}: payment confirmation for ${t80}`,
        paragraphs: [
          fr
            ? `Merci${NBSP}: votre paiement pour ${quote(v, v.title)} (${v.amount}) chez ${v.merchant} est enregistré.`
            : `Thank you: your payment for ${quote(v, v.title)} (${v.amount}) at ${v.merchant} is recorded.`,
        ],
        figures,
        next,
        link: purchaseLink,
      };
    }
    case 'pledge_receipt': {
      const share = m(n.chargedCents);
      const inviter = oneLine(n.inviterName, 60) || (fr ? 'un proche' : 'a friend');
      const deadline = formatDateTime(n.deadline, v.lang, n.timeZone);
      return {
        subject: fr ? `${v.merchant}${NBSP}: votre part de ${share} pour ${t80} est réglée` : `${v.merchant}: your share of ${share} for ${t80} is paid`,
        paragraphs: [
          fr
            ? `Merci${NBSP}: ${share} ont été débités sur ${v.card} pour votre part de ${quote(v, v.title)} chez ${v.merchant} (total ${v.amount}), dans la cagnotte de ${inviter}.`
            : `Thank you: ${share} was charged to ${v.card} for your share of ${quote(v, v.title)} at ${v.merchant} (total ${v.amount}), in ${inviter}'s pot.`,
        ],
        figures: [],
        next: [
          n.leftCents > 0
            ? fr
              ? `La cagnotte se termine le ${deadline}${NBSP}; il reste ${m(n.leftCents)} à réunir. Rien d'autre ne vous sera débité.`
              : `The pot closes on ${deadline}; ${m(n.leftCents)} is still to be collected. Nothing more will be charged to you.`
            : fr
              ? `La cagnotte est complète${NBSP}: l'achat est payé. Rien d'autre ne vous sera débité.`
              : 'The pot is complete: the purchase is paid. Nothing more will be charged to you.',
        ],
        link: { label: fr ? 'Voir la cagnotte' : 'See the pot', url: n.url },
      };
    }
    case 'installment_receipt': {
      const i = n.installment;
      const x = m(i.amountCents);
      return {
        subject:
          i.count === 1
            ? fr
              ? `${v.merchant}${NBSP}: ${x} débités pour ${t80}`
              : `${v.merchant}: ${x} charged for ${t80}`
            : i.balance
              ? fr
                ? `${v.merchant}${NBSP}: solde réglé pour ${t80}`
                : `${v.merchant}: balance paid for ${t80}`
              : fr
                ? `${v.merchant}${NBSP}: échéance ${i.index + 1} sur ${i.count} réglée pour ${t80}`
                : `${v.merchant}: installment ${i.index + 1} of ${i.count} paid for ${t80}`,
        paragraphs: [fr ? `${x} ont été débités sur ${v.card} pour ${what(v, i)} chez ${v.merchant}.` : `${x} was charged to ${v.card} for ${what(v, i)} at ${v.merchant}.`],
        figures: [],
        next: [
          n.next
            ? fr
              ? `Prochaine échéance${NBSP}: ${m(n.next.amountCents)} le ${v.date(n.next.dueDate)}. Nous vous écrirons quelques jours avant.`
              : `Next installment: ${m(n.next.amountCents)} on ${v.date(n.next.dueDate)}. We will e-mail you a few days before.`
            : fr
              ? "Votre achat est entièrement payé. Rien d'autre ne sera débité."
              : 'Your purchase is paid in full. Nothing more will be charged.',
        ],
        link: purchaseLink,
      };
    }
    case 'precharge': {
      const i = n.installment;
      const x = m(i.amountCents);
      const date = v.date(i.dueDate);
      return {
        subject: fr ? `${v.merchant}${NBSP}: ${x} seront débités le ${date} pour ${t80}` : `${v.merchant}: ${x} will be charged on ${date} for ${t80}`,
        paragraphs: [
          fr
            ? `Le ${date}, ${x} seront débités sur ${v.card} pour ${what(v, i)} chez ${v.merchant}, comme convenu lors de votre paiement.`
            : `On ${date}, ${x} will be charged to ${v.card} for ${what(v, i)} at ${v.merchant}, as agreed when you paid.`,
        ],
        figures: [],
        next: [
          fr
            ? "Assurez-vous que votre carte pourra être débitée ce jour-là. Vous n'avez rien d'autre à faire."
            : 'Please make sure your card can be charged that day. There is nothing else to do.',
        ],
        link: purchaseLink,
      };
    }
    case 'charge_failed': {
      const i = n.installment;
      const x = m(i.amountCents);
      return {
        subject: fr ? `${v.merchant}${NBSP}: le paiement de ${x} pour ${t80} a été refusé` : `${v.merchant}: the payment of ${x} for ${t80} was refused`,
        paragraphs: [
          fr
            ? `Nous n'avons pas pu débiter ${x} sur ${v.card} pour ${what(v, i)} chez ${v.merchant} (prévu le ${v.date(i.dueDate)}).`
            : `We could not charge ${x} to ${v.card} for ${what(v, i)} at ${v.merchant} (due on ${v.date(i.dueDate)}).`,
        ],
        figures: [],
        next: [
          n.retryOn
            ? fr
              ? `Nous réessaierons le ${v.date(n.retryOn)}. Assurez-vous d'ici là que votre carte peut être débitée.`
              : `We will try again on ${v.date(n.retryOn)}. Please make sure your card can be charged by then.`
            : fr
              ? `C'était la dernière tentative${NBSP}: le paiement est arrêté et l'achat a échoué. ${v.merchant} en est informé et pourra vous contacter.`
              : `That was the last attempt: the payment plan is stopped and the purchase has failed. ${v.merchant} has been informed and may contact you.`,
          ...(n.retryOn && n.payUrl
            ? [
                fr
                  ? 'Vous pouvez aussi payer maintenant, ou changer la carte débitée, depuis votre espace.'
                  : 'You can also pay now, or change the card to charge, from your space.',
              ]
            : []),
        ],
        ...(n.retryOn && n.payUrl ? { action: { label: fr ? 'Payer maintenant ou changer de carte' : 'Pay now or change your card', url: n.payUrl } } : {}),
        link: purchaseLink,
      };
    }
    case 'pot_complete': {
      const released = m(n.releasedCents);
      return {
        subject: fr ? `${v.merchant}${NBSP}: la cagnotte pour ${t80} est complète` : `${v.merchant}: the pot for ${t80} is complete`,
        paragraphs: [
          fr
            ? `Vos proches ont versé leurs parts${NBSP}: la cagnotte pour ${quote(v, v.title)} (${v.amount}) chez ${v.merchant} est complète et l'achat est payé.`
            : `Your friends have paid their shares: the pot for ${quote(v, v.title)} (${v.amount}) at ${v.merchant} is complete and the purchase is paid.`,
        ],
        figures: [],
        next: [
          n.releasedCents > 0
            ? fr
              ? `Les ${released} réservés en garantie sur ${v.card} sont libérés${NBSP}: rien d'autre ne sera débité.`
              : `The ${released} held as a guarantee on ${v.card} is released: nothing more will be charged.`
            : fr
              ? `Rien d'autre ne sera débité sur ${v.card}.`
              : `Nothing more will be charged to ${v.card}.`,
        ],
        link: purchaseLink,
      };
    }
    case 'hold_renewal_failed': {
      const held = m(n.heldCents);
      const lapses = formatDateTime(n.lapsesAt, v.lang, n.timeZone);
      const due = formatDateTime(n.dueAt, v.lang, n.timeZone);
      return {
        subject: fr
          ? `${v.merchant}${NBSP}: la réservation de ${held} sur votre carte n'a pas pu être renouvelée`
          : `${v.merchant}: the hold of ${held} on your card could not be renewed`,
        paragraphs: [
          fr
            ? `Pour ${quote(v, v.title)} (${v.amount}), ${v.card} garantit ${held} jusqu'au ${due}. Votre banque a refusé de renouveler cette réservation, qui prend fin le ${lapses}.`
            : `For ${quote(v, v.title)} (${v.amount}), ${v.card} guarantees ${held} until ${due}. Your bank refused to renew this hold, which ends on ${lapses}.`,
        ],
        figures: [],
        next: [
          fr
            ? `Le ${due}, ce qui sera dû sera débité sur ${v.card}. Assurez-vous d'ici là que votre carte peut être débitée, ou changez-la depuis votre espace.`
            : `On ${due}, what is due will be charged to ${v.card}. Please make sure your card can be charged by then, or change it from your space.`,
        ],
        link: purchaseLink,
      };
    }
    case 'rest_failed': {
      const rest = m(n.restCents);
      return {
        subject: fr ? `${v.merchant}${NBSP}: la cagnotte pour ${t80} n'a pas pu être complétée` : `${v.merchant}: the pot for ${t80} could not be completed`,
        paragraphs: [
          fr
            ? `La cagnotte pour ${quote(v, v.title)} (${v.amount}) s'est terminée avec ${rest} non couverts par vos proches, et nous n'avons pas pu débiter ${rest} sur ${v.card}.`
            : `The pot for ${quote(v, v.title)} (${v.amount}) closed with ${rest} not covered by your friends, and we could not charge ${rest} to ${v.card}.`,
        ],
        figures: [],
        next: [
          fr
            ? `L'achat a donc échoué et ce qui restait réservé sur votre carte est libéré. ${v.merchant} en est informé.`
            : `The purchase has therefore failed and whatever was still held on your card is released. ${v.merchant} has been informed.`,
        ],
        link: purchaseLink,
      };
    }
    case 'rest_charged': {
      const rest = m(n.restCents);
      return {
        subject: fr ? `${v.merchant}${NBSP}: ${rest} débités pour ${t80}` : `${v.merchant}: ${rest} charged for ${t80}`,
        paragraphs: [
          fr
            ? `La cagnotte pour ${quote(v, v.title)} (${v.amount}) chez ${v.merchant} s'est terminée avec ${rest} non couverts par vos proches${NBSP}: ${rest} ont été débités sur ${v.card}${n.fromHold ? ', à partir du montant réservé' : ''}, comme prévu lors de votre paiement.`
            : `The pot for ${quote(v, v.title)} (${v.amount}) at ${v.merchant} closed with ${rest} not covered by your friends: ${rest} was charged to ${v.card}${n.fromHold ? ', from the amount held' : ''}, as agreed when you paid.`,
        ],
        figures: [
          {
            heading: fr ? 'Votre carte' : 'Your card',
            rows: [
              [fr ? 'Débité maintenant' : 'Charged now', rest],
              [fr ? 'Débité en tout pour cet achat' : 'Charged in all for this purchase', m(n.chargedCents)],
            ],
          },
        ],
        next: [
          fr
            ? `L'achat est payé. Ce qui restait réservé sur votre carte est libéré${NBSP}; rien d'autre ne sera débité.`
            : 'The purchase is paid. Whatever was still held on your card is released; nothing more will be charged.',
        ],
        link: purchaseLink,
      };
    }
    case 'refund': {
      const back = m(n.refundCents);
      const lowered = n.lowered && n.lowered.cents > 0 ? n.lowered : undefined;
      const less = lowered ? m(lowered.cents) : '';
      const toCard = n.refundCents > 0;
      const loweredParagraph = lowered
        ? toCard
          ? fr
            ? `Ce remboursement réduit aussi de ${less} ce qu'il vous reste à payer.`
            : `This refund also takes ${less} off what you still have to pay.`
          : fr
            ? `${v.merchant} vous rembourse ${less} sur votre achat ${quote(v, v.title)} en réduisant ce qu'il vous reste à payer${NBSP}: rien n'est reversé sur ${v.card}, car ce montant n'avait pas encore été débité.`
            : `${v.merchant} refunded ${less} of your purchase ${quote(v, v.title)} by taking it off what you still have to pay: nothing goes back to ${v.card}, as that money had not been charged yet.`
        : undefined;
      const remaining: Figures[] =
        lowered && lowered.remaining.length > 0
          ? [{ heading: fr ? "Ce qu'il vous reste à payer" : 'What you still have to pay', rows: lowered.remaining.map((l) => [v.date(l.dueDate), m(l.amountCents)] as const) }]
          : [];
      const cardFigures: Figures = {
        heading: fr ? 'Vos paiements pour cet achat' : 'Your payments for this purchase',
        rows: [
          [fr ? 'Débité' : 'Charged', m(n.chargedCents)],
          [fr ? 'Remboursé' : 'Refunded', m(n.refundedCents)],
          [fr ? 'Net débité' : 'Net charged', m(n.chargedCents - n.refundedCents)],
        ],
      };
      return {
        subject: toCard
          ? fr
            ? `${v.merchant}${NBSP}: ${back} remboursés pour ${t80}`
            : `${v.merchant}: ${back} refunded for ${t80}`
          : fr
            ? `${v.merchant}${NBSP}: ${less} de moins à payer pour ${t80}`
            : `${v.merchant}: ${less} less to pay for ${t80}`,
        paragraphs: [
          ...(toCard
            ? [
                n.reason === 'merchant'
                  ? fr
                    ? `${v.merchant} vous rembourse ${back} sur votre paiement pour ${quote(v, v.title)}${NBSP}: ils sont reversés sur ${v.card}.`
                    : `${v.merchant} refunded ${back} of your payment for ${quote(v, v.title)}: it is on its way back to ${v.card}.`
                  : fr
                    ? `Votre paiement pour ${quote(v, v.title)} chez ${v.merchant} est arrivé alors qu'il n'était plus attendu (la cagnotte était close ou l'achat n'était plus à payer)${NBSP}: les ${back} débités sont reversés sur ${v.card}.`
                    : `Your payment for ${quote(v, v.title)} at ${v.merchant} came when it was no longer needed (the pot had closed, or the purchase was no longer to pay): the ${back} charged is on its way back to ${v.card}.`,
              ]
            : []),
          ...(loweredParagraph ? [loweredParagraph] : []),
        ],
        figures: [cardFigures, ...remaining],
        next: [
          ...(lowered && lowered.remaining.length === 0 ? [fr ? "Rien d'autre ne sera débité pour cet achat." : 'Nothing more will be charged for this purchase.'] : []),
          ...(toCard ? [fr ? 'Le remboursement peut mettre quelques jours à apparaître sur votre relevé.' : 'It may take a few days to appear on your statement.'] : []),
        ],
        link: purchaseLink,
      };
    }
  }
}

/** The e-mail of a receipt or notice: subject, plain text and an escaped HTML version. */
export function noticeEmail(n: ShopperNotice): PurchaseLinkEmail {
  const v = values(n);
  const name = n.name === undefined ? undefined : oneLine(n.name, 60) || undefined;
  const space = n.spaceUrl
    ? { label: v.fr ? 'Votre espace Chipin (ce que vous devez, quand, vos reçus)' : 'Your Chipin space (what you owe, when, your receipts)', url: n.spaceUrl }
    : undefined;
  return renderNotice(v.lang, COMMON[v.lang].greeting(name), COMMON[v.lang].signature(v.merchant), { ...texts(n, v), ...(space ? { space } : {}) });
}

/**
 * The SMS of a receipt or notice, for a shopper known only by a phone number: one GSM-7 segment
 * with a typical amount and title, opening with who sends it for which shop ({@link smsOpening};
 * the title is shortened, then left out, then the thanks, to fit). No link: the SMS says all
 * there is to know, and the page's link came with the invitation.
 */
export function noticeSms(n: SmsNotice): string {
  const v = values(n);
  const { fr } = v;
  const m = (cents: number) => smsSafe(v.m(cents));
  const merchant = smsSafe(v.merchant);
  const title = smsSafe(v.title);
  const opening = smsOpening(v.lang, merchant);
  let build: (title: string, thanks?: boolean) => string;
  switch (n.kind) {
    case 'pledge_receipt': {
      const share = m(n.chargedCents);
      const after =
        n.leftCents > 0
          ? fr
            ? `Il reste ${m(n.leftCents)} à réunir avant le ${smsDate(formatDateTime(n.deadline, v.lang, n.timeZone))}. Rien d'autre ne vous sera débité.`
            : `${m(n.leftCents)} still to collect before ${smsDate(formatDateTime(n.deadline, v.lang, n.timeZone))}. Nothing more will be charged to you.`
          : fr
            ? "La cagnotte est complète. Rien d'autre ne vous sera débité."
            : 'The pot is complete. Nothing more will be charged to you.';
      build = (t, thanks = true) =>
        fr
          ? `${opening} ${thanks ? 'merci, v' : 'V'}otre part de ${share}${t ? ` pour "${t}"` : ''} est payée. ${after}`
          : `${opening} ${thanks ? 'thank you, y' : 'Y'}our share of ${share}${t ? ` for "${t}"` : ''} is paid. ${after}`;
      break;
    }
    case 'pot_complete': {
      const after =
        n.releasedCents > 0
          ? fr
            ? `Les ${m(n.releasedCents)} bloqués sont libérés, rien d'autre ne sera débité.`
            : `The ${m(n.releasedCents)} held on your card is released, nothing more will be charged.`
          : fr
            ? "Rien d'autre ne sera débité."
            : 'Nothing more will be charged.';
      build = (t) =>
        fr
          ? `${opening} vos proches ont complété la cagnotte${t ? ` pour "${t}"` : ''}, l'achat est payé. ${after}`
          : `${opening} your friends completed the pot${t ? ` for "${t}"` : ''}, it is paid. ${after}`;
      break;
    }
    case 'rest_charged': {
      const rest = m(n.restCents);
      build = (t) =>
        fr
          ? `${opening} la cagnotte${t ? ` pour "${t}"` : ''} est close, ${rest} non couverts ont été débités sur votre carte. L'achat est payé, rien d'autre ne sera débité.`
          : `${opening} the pot${t ? ` for "${t}"` : ''} closed, the ${rest} not covered was charged to your card. It is paid, nothing more will be charged.`;
      break;
    }
    case 'installment_receipt':
    case 'precharge':
    case 'charge_failed': {
      const i = n.installment;
      const x = m(i.amountCents);
      const date = (iso: string) => smsDate(v.date(iso));
      const last4 = n.card?.last4.replace(/\D/g, '').slice(-4);
      const card = last4 ? (fr ? `votre carte (fin ${last4})` : `your card ending ${last4}`) : fr ? 'votre carte' : 'your card';
      // `installment 2/3 for "Title"`, `the balance of "Title"`, or `"Title"` alone for a deferred payment.
      const balance = (t: string) => (fr ? ` le solde${t ? ` de "${t}"` : ''}` : ` the balance${t ? ` of "${t}"` : ''}`);
      const part = (t: string) =>
        i.balance
          ? balance(t)
          : i.count === 1
            ? t
              ? ` "${t}"`
              : fr
                ? ' votre achat'
                : ' your purchase'
            : fr
              ? ` l'échéance ${i.index + 1}/${i.count}${t ? ` de "${t}"` : ''}`
              : ` installment ${i.index + 1}/${i.count}${t ? ` of "${t}"` : ''}`;
      if (n.kind === 'installment_receipt') {
        const after = n.next
          ? fr
            ? `Prochaine : ${m(n.next.amountCents)} le ${date(n.next.dueDate)}.`
            : `Next: ${m(n.next.amountCents)} on ${date(n.next.dueDate)}.`
          : fr
            ? 'Achat entièrement payé.'
            : 'Paid in full.';
        build = (t) => (fr ? `${opening} ${x} débités sur ${card} pour${part(t)}. ${after}` : `${opening} ${x} charged to ${card} for${part(t)}. ${after}`);
      } else if (n.kind === 'precharge') {
        build = (t) =>
          fr
            ? `${opening} ${x} seront débités sur ${card} le ${date(i.dueDate)} pour${part(t)}.`
            : `${opening} ${x} will be charged to ${card} on ${date(i.dueDate)} for${part(t)}.`;
      } else {
        const after = n.retryOn
          ? fr
            ? `Nouvel essai le ${date(n.retryOn)}.`
            : `We will try again on ${date(n.retryOn)}.`
          : fr
            ? "C'était le dernier essai : l'achat a échoué."
            : 'That was the last try: the purchase failed.';
        build = (t) => (fr ? `${opening} ${x} refusés par ${card} pour${part(t)}. ${after}` : `${opening} ${card} refused ${x} for${part(t)}. ${after}`);
      }
      break;
    }
    case 'hold_renewal_failed': {
      const held = m(n.heldCents);
      const due = smsDate(formatDateTime(n.dueAt, v.lang, n.timeZone));
      build = (t) =>
        fr
          ? `${opening} votre banque a refusé de renouveler la réservation de ${held}${t ? ` pour "${t}"` : ''}. Le ${due}, le dû sera débité sur votre carte.`
          : `${opening} your bank refused to renew the hold of ${held}${t ? ` for "${t}"` : ''}. On ${due}, what is due will be charged to your card.`;
      break;
    }
    case 'rest_failed': {
      const rest = m(n.restCents);
      build = (t) =>
        fr
          ? `${opening} la cagnotte${t ? ` pour "${t}"` : ''} est close, ${rest} non couverts ont été refusés par votre carte. L'achat a échoué, la réservation est libérée.`
          : `${opening} the pot${t ? ` for "${t}"` : ''} closed, your card refused the ${rest} not covered. The purchase failed, the hold is released.`;
      break;
    }
    case 'refund': {
      const back = m(n.refundCents);
      const net = m(n.chargedCents - n.refundedCents);
      const lowered = n.lowered && n.lowered.cents > 0 ? n.lowered : undefined;
      const next = lowered?.remaining[0];
      // What is left to pay after a lowering: the next charge, or nothing more.
      const after = !lowered
        ? ''
        : next
          ? fr
            ? ` Prochain débit : ${m(next.amountCents)} le ${smsDate(v.date(next.dueDate))}.`
            : ` Next charge: ${m(next.amountCents)} on ${smsDate(v.date(next.dueDate))}.`
          : fr
            ? ' Plus rien à payer.'
            : ' Nothing more to pay.';
      build = (t) =>
        n.refundCents > 0
          ? fr
            ? `${opening} ${back} remboursés sur votre carte${t ? ` pour "${t}"` : ''}. Net débité : ${net}.${lowered ? ` ${m(lowered.cents)} de moins à payer.${after}` : ''}`
            : `${opening} ${back} refunded to your card${t ? ` for "${t}"` : ''}. Net charged: ${net}.${lowered ? ` ${m(lowered.cents)} less to pay.${after}` : ''}`
          : fr
            ? `${opening} ${m(lowered?.cents ?? 0)} de moins à payer${t ? ` pour "${t}"` : ''}.${after}`
            : `${opening} ${m(lowered?.cents ?? 0)} less to pay${t ? ` for "${t}"` : ''}.${after}`;
      break;
    }
  }
  return firstFitting([() => build(title), () => shortenedTitle(title, build), () => build(''), () => build('', false)]);
}

/** The kind of a notice, for the logs and `outbound_messages`. */
export type NoticeKind = ShopperNotice['kind'];
