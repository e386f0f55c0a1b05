import { html } from '../html/html.ts';
import { formatDateTime } from '../i18n/format.ts';
import type { Lang } from '../i18n/lang.ts';
import type { ShopperNotice } from './messenger.ts';
import { brandLabel, noticeValues, type NoticeText, type NoticeValues } from './notice-values.ts';
import { creditFigures, figuresHtml, figuresText, oneLine, planFigures, type Figures, type PurchaseLinkEmail } from './templates.ts';
import { MESSAGE_TEXT } from './texts.ts';

/**
 * Receipts and notices to shoppers by e-mail (docs/messaging.md, "E-mails and SMS over a purchase's life"):
 * what was charged, what is held, what comes next. Pure functions, in the recipient's language
 * (one of the six; the words are the messages catalogue's, `texts.ts`), every value escaped
 * in the HTML part, untrusted values flattened to one line. Their SMS are `notice-sms.ts`.
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
  const colon = MESSAGE_TEXT[lang].colon;
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

/** `Visa ending 4242` / `Visa se terminant par 4242`. */
function cardLabel(card: { brand: string; last4: string }, t: NoticeText): string {
  const last4 = card.last4.replace(/\D/g, '').slice(-4);
  return t.cardLabel(brandLabel(card.brand) || t.cardBrand, last4);
}

type Notice<K extends ShopperNotice['kind']> = Extract<ShopperNotice, { kind: K }>;

/** What every notice's texts start from: its values, its title for a subject, the link to the purchase. */
interface Context {
  v: NoticeValues;
  t: NoticeText;
  t80: string;
  purchaseLink: { label: string; url: string };
}

function leaderReceipt(n: Notice<'leader_receipt'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const { m } = v;
  const today: Figures = {
    heading: t.leaderReceipt.today,
    rows: [
      ...(n.chargedCents > 0 ? [[t.charged, m(n.chargedCents)] as const] : []),
      ...(n.heldCents > 0 ? [[t.leaderReceipt.held, m(n.heldCents)] as const] : []),
      ...(n.card ? [[t.leaderReceipt.card, cardLabel(n.card, t)] as const] : []),
    ],
  };
  const figures: Figures[] = [today];
  const next: string[] = [];
  const offer = n.offer;
  if (offer.type === 'INSTALLMENTS') {
    figures.push(planFigures(offer.lines, n.currency, v.lang, true), creditFigures(offer.credit, n.currency, v.lang));
    next.push(t.leaderReceipt.nextInstallments(v.card));
  } else if (offer.type === 'DOWN_PAYMENT') {
    figures.push(planFigures([offer.deposit, offer.balance], n.currency, v.lang, true));
    if (offer.credit.feesCents > 0) figures.push(creditFigures(offer.credit, n.currency, v.lang));
    next.push(t.leaderReceipt.balance(m(offer.balance.amountCents), v.card, v.date(offer.balance.dueDate)));
  } else if (offer.type === 'DEFERRED') {
    if (offer.credit.feesCents > 0) figures.push(creditFigures(offer.credit, n.currency, v.lang));
    next.push(t.leaderReceipt.deferred(m(offer.credit.totalDueCents), v.card, v.date(offer.dueDate)));
  } else if (n.pot) {
    const deadline = formatDateTime(n.pot.deadline, v.lang, n.timeZone);
    next.push(t.leaderReceipt.pot(n.pot.invited, m(n.pot.pledgedCents), deadline, v.card, n.heldCents > 0));
  } else {
    next.push(t.paidInFull);
  }
  return {
    subject: t.leaderReceipt.subject(v.merchant, t80),
    paragraphs: [t.leaderReceipt.thanks(v.title, v.amount, v.merchant)],
    figures,
    next,
    link: purchaseLink,
  };
}

function pledgeReceipt(n: Notice<'pledge_receipt'>, { v, t, t80 }: Context): NoticeTexts {
  const share = v.m(n.chargedCents);
  const inviter = oneLine(n.inviterName, 60) || t.pledgeReceipt.aFriend;
  const deadline = formatDateTime(n.deadline, v.lang, n.timeZone);
  return {
    subject: t.pledgeReceipt.subject(v.merchant, share, t80),
    paragraphs: [t.pledgeReceipt.thanks({ share, card: v.card, title: v.title, merchant: v.merchant, amount: v.amount, inviter })],
    figures: [],
    next: [n.leftCents > 0 ? t.pledgeReceipt.potOpen(deadline, v.m(n.leftCents)) : t.pledgeReceipt.potComplete],
    link: { label: t.pledgeReceipt.seePot, url: n.url },
  };
}

function installmentReceipt(n: Notice<'installment_receipt'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const i = n.installment;
  const x = v.m(i.amountCents);
  return {
    subject:
      i.count === 1
        ? t.chargedSubject(v.merchant, x, t80)
        : i.balance
          ? t.installmentReceipt.balanceSubject(v.merchant, t80)
          : t.installmentReceipt.subject(v.merchant, i.index + 1, i.count, t80),
    paragraphs: [t.installmentReceipt.charged(x, v.card, t.what(v.title, i), v.merchant)],
    figures: [],
    next: [n.next ? t.installmentReceipt.next(v.m(n.next.amountCents), v.date(n.next.dueDate)) : t.paidInFull],
    link: purchaseLink,
  };
}

function precharge(n: Notice<'precharge'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const i = n.installment;
  const x = v.m(i.amountCents);
  const date = v.date(i.dueDate);
  return {
    subject: t.precharge.subject(v.merchant, x, date, t80),
    paragraphs: [t.precharge.coming(date, x, v.card, t.what(v.title, i), v.merchant)],
    figures: [],
    next: [t.precharge.next],
    link: purchaseLink,
  };
}

function chargeFailed(n: Notice<'charge_failed'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const i = n.installment;
  const x = v.m(i.amountCents);
  const payNow = n.retryOn && n.payUrl ? n.payUrl : undefined;
  return {
    subject: t.chargeFailed.subject(v.merchant, x, t80),
    paragraphs: [t.chargeFailed.refused(x, v.card, t.what(v.title, i), v.merchant, v.date(i.dueDate))],
    figures: [],
    next: [n.retryOn ? t.chargeFailed.retry(v.date(n.retryOn)) : t.chargeFailed.last(v.merchant), ...(payNow ? [t.chargeFailed.payFromSpace] : [])],
    ...(payNow ? { action: { label: t.chargeFailed.payAction, url: payNow } } : {}),
    link: purchaseLink,
  };
}

function potComplete(n: Notice<'pot_complete'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  return {
    subject: t.potComplete.subject(v.merchant, t80),
    paragraphs: [t.potComplete.complete(v.title, v.amount, v.merchant)],
    figures: [],
    next: [n.releasedCents > 0 ? t.potComplete.released(v.m(n.releasedCents), v.card) : t.potComplete.nothingMore(v.card)],
    link: purchaseLink,
  };
}

function holdRenewalFailed(n: Notice<'hold_renewal_failed'>, { v, t, purchaseLink }: Context): NoticeTexts {
  const held = v.m(n.heldCents);
  const lapses = formatDateTime(n.lapsesAt, v.lang, n.timeZone);
  const due = formatDateTime(n.dueAt, v.lang, n.timeZone);
  return {
    subject: t.holdRenewalFailed.subject(v.merchant, held),
    paragraphs: [t.holdRenewalFailed.refused({ title: v.title, amount: v.amount, card: v.card, held, due, lapses })],
    figures: [],
    next: [t.holdRenewalFailed.next(due, v.card)],
    link: purchaseLink,
  };
}

function restFailed(n: Notice<'rest_failed'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const rest = v.m(n.restCents);
  return {
    subject: t.restFailed.subject(v.merchant, t80),
    paragraphs: [t.restFailed.refused(v.title, v.amount, rest, v.card)],
    figures: [],
    next: [t.restFailed.next(v.merchant)],
    link: purchaseLink,
  };
}

function restCharged(n: Notice<'rest_charged'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const rest = v.m(n.restCents);
  return {
    subject: t.chargedSubject(v.merchant, rest, t80),
    paragraphs: [t.restCharged.charged({ title: v.title, amount: v.amount, merchant: v.merchant, rest, card: v.card, fromHold: n.fromHold })],
    figures: [
      {
        heading: t.restCharged.yourCard,
        rows: [
          [t.restCharged.chargedNow, rest],
          [t.restCharged.chargedInAll, v.m(n.chargedCents)],
        ],
      },
    ],
    next: [t.restCharged.next],
    link: purchaseLink,
  };
}

function refund(n: Notice<'refund'>, { v, t, t80, purchaseLink }: Context): NoticeTexts {
  const { m } = v;
  const back = m(n.refundCents);
  const lowered = n.lowered && n.lowered.cents > 0 ? n.lowered : undefined;
  const less = lowered ? m(lowered.cents) : '';
  const toCard = n.refundCents > 0;
  const loweredParagraph = lowered ? (toCard ? t.refund.loweredToo(less) : t.refund.loweredOnly(v.merchant, less, v.title, v.card)) : undefined;
  const remaining: Figures[] =
    lowered && lowered.remaining.length > 0 ? [{ heading: t.refund.remaining, rows: lowered.remaining.map((l) => [v.date(l.dueDate), m(l.amountCents)] as const) }] : [];
  const cardFigures: Figures = {
    heading: t.refund.payments,
    rows: [
      [t.charged, m(n.chargedCents)],
      [t.refund.refunded, m(n.refundedCents)],
      [t.refund.net, m(n.chargedCents - n.refundedCents)],
    ],
  };
  return {
    subject: toCard ? t.refund.refundedSubject(v.merchant, back, t80) : t.refund.loweredSubject(v.merchant, less, t80),
    paragraphs: [
      ...(toCard ? [n.reason === 'merchant' ? t.refund.byMerchant(v.merchant, back, v.title, v.card) : t.refund.givenBack(v.title, v.merchant, back, v.card)] : []),
      ...(loweredParagraph ? [loweredParagraph] : []),
    ],
    figures: [cardFigures, ...remaining],
    next: [...(lowered && lowered.remaining.length === 0 ? [t.refund.nothingMore] : []), ...(toCard ? [t.refund.statement] : [])],
    link: purchaseLink,
  };
}

function texts(n: ShopperNotice, v: NoticeValues): NoticeTexts {
  const { t } = v;
  const c: Context = { v, t, t80: oneLine(v.title, 80), purchaseLink: { label: t.seePurchase, url: n.url } };
  switch (n.kind) {
    case 'leader_receipt':
      return leaderReceipt(n, c);
    case 'pledge_receipt':
      return pledgeReceipt(n, c);
    case 'installment_receipt':
      return installmentReceipt(n, c);
    case 'precharge':
      return precharge(n, c);
    case 'charge_failed':
      return chargeFailed(n, c);
    case 'pot_complete':
      return potComplete(n, c);
    case 'hold_renewal_failed':
      return holdRenewalFailed(n, c);
    case 'rest_failed':
      return restFailed(n, c);
    case 'rest_charged':
      return restCharged(n, c);
    case 'refund':
      return refund(n, c);
  }
}

/** The e-mail of a receipt or notice: subject, plain text and an escaped HTML version. */
export function noticeEmail(n: ShopperNotice): PurchaseLinkEmail {
  const v = noticeValues(n);
  const name = n.name === undefined ? undefined : oneLine(n.name, 60) || undefined;
  const space = n.spaceUrl ? { label: v.t.space, url: n.spaceUrl } : undefined;
  return renderNotice(v.lang, v.words.greeting(name), v.words.signature(v.merchant), { ...texts(n, v), ...(space ? { space } : {}) });
}

/** The kind of a notice, for the logs and `outbound_messages`. */
export type NoticeKind = ShopperNotice['kind'];
