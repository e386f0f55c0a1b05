import { html } from '../html/html.ts';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '../i18n/format.ts';
import { CREDIT_WORDS } from '../i18n/credit-words.ts';
import { langOf, type EnFr, EN_FR } from '../i18n/lang.ts';
import type { CreditTerms, OfferSummary, PledgeMessage, PurchaseLinkMessage } from './messenger.ts';

/**
 * Texts of the messages sent to shoppers, in the purchase's language (fr and en complete; every
 * other locale falls back to English). Pure functions: no I/O, no clock.
 *
 * Merchant- and shopper-supplied values (merchant name, title, first name, inviter and pledger
 * names) are untrusted: they are flattened to one line everywhere (no header or line injection) and
 * HTML-escaped in the HTML part.
 *
 * Messages:
 * - purchase link ({@link purchaseLinkEmail}, {@link purchaseLinkSms}): to the leader;
 * - pledge invitation / reminder ({@link pledgeEmail}, {@link pledgeSms}): to a pledger of a shared
 *   pot, asking for their share before the pot's deadline.
 */

export interface PurchaseLinkEmail {
  lang: EnFr;
  subject: string;
  text: string;
  html: string;
}

/** One line, no control characters, trimmed, at most `max` characters (an ellipsis marks a cut). */
export function oneLine(value: string, max = 200, ellipsis = '…'): string {
  const flat = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= max ? flat : flat.slice(0, Math.max(0, max - ellipsis.length)).trimEnd() + ellipsis;
}

interface Parts {
  lang: EnFr;
  merchant: string;
  title: string;
  amount: string;
  url: string;
  /** Whom the message greets, when known. */
  firstName: string | undefined;
}

/** The message's values, flattened and formatted; `greetName` is whom the message greets. */
function parts(msg: PurchaseLinkMessage, greetName: string | undefined): Parts {
  const lang = langOf(msg.language, EN_FR);
  const firstName = greetName === undefined ? undefined : oneLine(greetName, 60);
  return {
    lang,
    merchant: oneLine(msg.merchantName, 100) || 'Chipin',
    title: oneLine(msg.title, 150),
    amount: formatMoney(msg.amountCents, msg.currency, lang),
    url: msg.url,
    firstName: firstName || undefined,
  };
}

export const NBSP = '\u00a0';

/** Wording shared by every e-mail. */
export const COMMON: Record<EnFr, { greeting(name: string | undefined): string; signature(merchant: string): string }> = {
  en: {
    greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
    signature: (merchant) => `Chipin, on behalf of ${merchant}`,
  },
  fr: {
    greeting: (name) => (name ? `Bonjour ${name},` : 'Bonjour,'),
    signature: (merchant) => `Chipin, pour le compte de ${merchant}`,
  },
};

/** A titled list of figures (a credit disclosure, a schedule), shown as a table in the HTML part. */
export interface Figures {
  heading: string;
  rows: ReadonlyArray<readonly [label: string, value: string]>;
  /** Sentences under the rows (too long for a table cell: the lender, the right of withdrawal). */
  notes?: readonly string[];
  /** The last sentence, in bold in the HTML part (the credit's statutory warning). */
  warning?: string;
}

/** `Heading:` then one `- label: value` line per row (plain-text part). */
export function figuresText(f: Figures, lang: EnFr): string {
  const colon = lang === 'fr' ? `${NBSP}:` : ':';
  return [`${f.heading}${colon}`, ...f.rows.map(([label, value]) => `- ${label}${colon} ${value}`), ...(f.notes ?? []), ...(f.warning ? [f.warning] : [])].join('\n');
}

/** A two-column data table with its caption (HTML part): readable by screen readers, narrow enough for phones. */
export function figuresHtml(f: Figures) {
  return html`<table style="border-collapse:collapse;margin:0 0 16px 0;min-width:260px;max-width:100%">
<caption style="text-align:left;font-weight:bold;padding:0 0 6px 0">${f.heading}</caption>
<tbody>${f.rows.map(
    ([label, value]) =>
      html`<tr><th scope="row" style="text-align:left;font-weight:normal;padding:4px 16px 4px 0;border-top:1px solid #d0d0d0">${label}</th><td style="text-align:right;padding:4px 0;border-top:1px solid #d0d0d0;white-space:nowrap">${value}</td></tr>`,
  )}</tbody>
</table>${(f.notes ?? []).map((n) => html`<p style="margin:0 0 8px 0">${n}</p>`)}${f.warning ? html`<p style="font-weight:bold;margin:0 0 16px 0">${f.warning}</p>` : ''}`;
}

/** The texts of one e-mail, before layout. */
interface EmailTexts {
  subject: string;
  greeting: string;
  intro: string;
  /** Figures shown after the intro (a credit disclosure). */
  figures?: Figures[];
  /** The line just above the link. */
  invite: string;
  /** The button's label (HTML part). */
  cta: string;
  ignore: string;
  signature: string;
}

/** Lays out an e-mail: plain text, and an HTML version where every value is escaped. */
function renderEmail(lang: EnFr, url: string, t: EmailTexts): PurchaseLinkEmail {
  const figures = t.figures ?? [];
  const text = [t.greeting, '', t.intro, '', ...figures.flatMap((f) => [figuresText(f, lang), '']), t.invite, url, '', t.ignore, '', '-- ', t.signature, ''].join('\n');
  const markup = html`<!DOCTYPE html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t.subject}</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a;background:#ffffff">
<p>${t.greeting}</p>
<p>${t.intro}</p>
${figures.map(figuresHtml)}
<p>${t.invite}</p>
<p><a href="${url}" style="display:inline-block;padding:12px 20px;background:#0b5cad;color:#ffffff;text-decoration:none;border-radius:4px">${t.cta}</a></p>
<p style="font-size:13px;color:#555555;word-break:break-all"><a href="${url}">${url}</a></p>
<p style="font-size:13px;color:#555555">${t.ignore}</p>
<p style="font-size:13px;color:#555555">${t.signature}</p>
</body>
</html>
`.toString();
  return { lang, subject: oneLine(t.subject, 200), text, html: markup };
}

const EMAIL: Record<EnFr, (p: Parts) => EmailTexts> = {
  en: (p) => ({
    subject: `${p.merchant}: your payment link for ${oneLine(p.title, 80)}`,
    greeting: COMMON.en.greeting(p.firstName),
    intro: `${p.merchant} has prepared your purchase "${p.title}" for ${p.amount}.`,
    invite: 'Pay for it on your own or with friends at this link:',
    cta: 'Pay now',
    ignore: 'If you did not ask for this purchase, you can ignore this e-mail.',
    signature: COMMON.en.signature(p.merchant),
  }),
  fr: (p) => ({
    subject: `${p.merchant}${NBSP}: votre lien de paiement pour ${oneLine(p.title, 80)}`,
    greeting: COMMON.fr.greeting(p.firstName),
    intro: `${p.merchant} a préparé votre achat «${NBSP}${p.title}${NBSP}» d’un montant de ${p.amount}.`,
    invite: `Réglez-le seul ou à plusieurs en suivant ce lien${NBSP}:`,
    cta: 'Payer maintenant',
    ignore: 'Si vous n’êtes pas à l’origine de cet achat, vous pouvez ignorer cet e-mail.',
    signature: COMMON.fr.signature(p.merchant),
  }),
};

/**
 * The credit an installment or deferred offer is, in figures: the same on the checkout page, with
 * its mentions (lender, right of withdrawal where it applies, the statutory warning under them).
 */
export function creditFigures(credit: CreditTerms, currency: string, lang: EnFr): Figures {
  const m = (cents: number) => formatMoney(cents, currency, lang);
  const c = credit.mentions;
  const days = c && c.withdrawalDays > 0 ? c.withdrawalDays : undefined;
  return lang === 'fr'
    ? {
        heading: 'Crédit',
        rows: [
          ['Montant financé', m(credit.financedCents)],
          ['Frais (coût total du crédit)', m(credit.feesCents)],
          ['Montant total dû', m(credit.totalDueCents)],
          ['TAEG fixe', formatPercent(credit.taegPercent, lang)],
        ],
        notes: [
          ...(c ? [`Prêteur${NBSP}: ${c.lender}`] : []),
          ...(days
            ? [
                `Droit de rétractation${NBSP}: vous pouvez vous rétracter de ce crédit dans un délai de ${days}${NBSP}jours calendaires révolus à compter de son acceptation, sans avoir à vous justifier.`,
              ]
            : []),
        ],
        ...(c ? { warning: CREDIT_WORDS.text('fr', 'warning') } : {}),
      }
    : {
        heading: 'Credit',
        rows: [
          ['Amount financed', m(credit.financedCents)],
          ['Fees (total cost of credit)', m(credit.feesCents)],
          ['Total amount due', m(credit.totalDueCents)],
          ['Fixed APR', formatPercent(credit.taegPercent, lang)],
        ],
        notes: [
          ...(c ? [`Lender: ${c.lender}`] : []),
          ...(days ? [`Right of withdrawal: you may withdraw from this credit within ${days} calendar days of accepting it, without giving a reason.`] : []),
        ],
        ...(c ? { warning: CREDIT_WORDS.text('en', 'warning') } : {}),
      };
}

/** The plan's payments: today's first, then each date. */
export function planFigures(lines: ReadonlyArray<{ dueDate: string; amountCents: number }>, currency: string, lang: EnFr, firstIsToday: boolean): Figures {
  const fr = lang === 'fr';
  return {
    heading: fr ? 'Échéancier' : 'Payment schedule',
    rows: lines.map((l, k) => [k === 0 && firstIsToday ? (fr ? 'Aujourd’hui' : 'Today') : formatDate(l.dueDate, lang), formatMoney(l.amountCents, currency, lang)] as const),
  };
}

/** How the link e-mail tells an installment or deferred offer (the shared pot keeps {@link EMAIL}). */
function planEmailTexts(p: Parts, offer: Exclude<OfferSummary, { type: 'SHARED' }>, currency: string): EmailTexts {
  const fr = p.lang === 'fr';
  const m = (cents: number) => formatMoney(cents, currency, p.lang);
  const base = EMAIL[p.lang](p);
  if (offer.type === 'INSTALLMENTS') {
    const first = m(offer.lines[0]!.amountCents);
    const fees = m(offer.credit.feesCents);
    return {
      ...base,
      intro: fr
        ? `${p.merchant} a préparé votre achat «${NBSP}${p.title}${NBSP}» d’un montant de ${p.amount}, payable en ${offer.count} fois par carte. Ce paiement en plusieurs fois est un crédit${NBSP}: ${first} aujourd’hui (dont ${fees} de frais), puis une échéance chaque mois.`
        : `${p.merchant} has prepared your purchase "${p.title}" for ${p.amount}, payable by card in ${offer.count} installments. Paying in installments is a credit: ${first} today (including ${fees} of fees), then one payment each month.`,
      figures: [planFigures(offer.lines, currency, p.lang, true), creditFigures(offer.credit, currency, p.lang)],
      invite: fr ? `Payez la première échéance de ${first} en suivant ce lien${NBSP}:` : `Pay the first installment of ${first} at this link:`,
      cta: fr ? `Payer ${first}` : `Pay ${first}`,
    };
  }
  if (offer.type === 'DOWN_PAYMENT') return downPaymentEmailTexts(p, base, offer, currency);
  const total = m(offer.credit.totalDueCents);
  const date = formatDate(offer.dueDate, p.lang);
  return {
    ...base,
    intro: fr
      ? `${p.merchant} a préparé votre achat «${NBSP}${p.title}${NBSP}» d’un montant de ${p.amount}, à payer plus tard${NBSP}: rien n’est débité aujourd’hui. Vous autorisez ${total} sur votre carte, qui seront débités le ${date}.`
      : `${p.merchant} has prepared your purchase "${p.title}" for ${p.amount}, to pay later: nothing is charged today. You authorise ${total} on your card, charged on ${date}.`,
    figures: offer.credit.feesCents > 0 ? [creditFigures(offer.credit, currency, p.lang)] : [],
    invite: fr ? `Autorisez ${total} (débités le ${date}) en suivant ce lien${NBSP}:` : `Authorise ${total} (charged on ${date}) at this link:`,
    cta: fr ? `Autoriser ${total}` : `Authorise ${total}`,
  };
}

/**
 * How the link e-mail tells a down payment (docs/schedules.md#down-payment): the deposit paid now
 * (its fees included), the balance and its date; the credit's figures when the balance costs something.
 */
function downPaymentEmailTexts(p: Parts, base: EmailTexts, offer: Extract<OfferSummary, { type: 'DOWN_PAYMENT' }>, currency: string): EmailTexts {
  const fr = p.lang === 'fr';
  const m = (cents: number) => formatMoney(cents, currency, p.lang);
  const deposit = m(offer.deposit.amountCents);
  const balance = m(offer.balance.amountCents);
  const date = formatDate(offer.balance.dueDate, p.lang);
  const fees = offer.credit.feesCents > 0 ? m(offer.credit.feesCents) : undefined;
  const credit = offer.credit.mentions !== undefined;
  return {
    ...base,
    intro: fr
      ? `${p.merchant} a préparé votre achat «${NBSP}${p.title}${NBSP}» d’un montant de ${p.amount}, payable par carte en deux temps${NBSP}: un acompte de ${deposit} aujourd’hui${fees ? ` (dont ${fees} de frais)` : ''}, puis le solde de ${balance}, débité le ${date}.${credit ? ` Payer le solde plus tard est un crédit.` : ''}`
      : `${p.merchant} has prepared your purchase "${p.title}" for ${p.amount}, payable by card in two parts: a deposit of ${deposit} today${fees ? ` (including ${fees} of fees)` : ''}, then the balance of ${balance}, charged on ${date}.${credit ? ' Paying the balance later is a credit.' : ''}`,
    figures: [planFigures([offer.deposit, offer.balance], currency, p.lang, true), ...(offer.credit.feesCents > 0 ? [creditFigures(offer.credit, currency, p.lang)] : [])],
    invite: fr ? `Payez l’acompte de ${deposit} en suivant ce lien${NBSP}:` : `Pay the deposit of ${deposit} at this link:`,
    cta: fr ? `Payer ${deposit}` : `Pay ${deposit}`,
  };
}

/**
 * The e-mail carrying a purchase's payment link: subject, plain text and an escaped HTML version.
 * It says what the offer is: a pot ("on your own or with friends"), an installment plan with its
 * schedule and credit figures, or a deferred payment ("Authorise … — charged on <date>").
 */
export function purchaseLinkEmail(msg: PurchaseLinkMessage): PurchaseLinkEmail {
  const p = parts(msg, msg.firstName);
  const texts = msg.offer && msg.offer.type !== 'SHARED' ? planEmailTexts(p, msg.offer, msg.currency) : EMAIL[p.lang](p);
  return renderEmail(p.lang, p.url, texts);
}

// ---------------------------------------------------------------------------------------------
// Pledges: a pledger's invitation to pay a share of the shared pot, and the reminder.

interface PledgeParts extends Parts {
  reminder: boolean;
  inviter: string;
  share: string;
  deadline: string;
}

/** The values a pledge sentence is made of; `title` and `merchant` may be '' (left out). */
interface PledgeFields {
  inviter: string;
  share: string;
  title: string;
  merchant: string;
  amount: string;
  deadline: string;
}

const PLEDGE: Record<
  EnFr,
  {
    /** Stands for an inviter whose name is empty. */
    someone: string;
    /** `Reminder: ` */
    reminder: string;
    /** `<inviter> invites you to chip in <share> for "<title>" at <merchant> (total <amount>)`, no final stop. */
    offer(f: PledgeFields): string;
    /** Invitation, the line above the link: `Pay your share before <deadline>:`. */
    payBefore(deadline: string): string;
    /** Reminder, the line above the link: `The pot closes on <deadline>. Pay your share here:`. */
    closes(deadline: string): string;
    /** The compact SMS ending after the offer: `before <deadline>:`. */
    before(deadline: string): string;
    subject(p: PledgeParts, title: string): string;
    cta: string;
    ignore: string;
  }
> = {
  en: {
    someone: 'A friend',
    reminder: 'Reminder: ',
    offer: (f) => `${f.inviter} invites you to chip in ${f.share}${f.title ? ` for "${f.title}"` : ''}${f.merchant ? ` at ${f.merchant} (total ${f.amount})` : ''}`,
    payBefore: (d) => `Pay your share before ${d}:`,
    closes: (d) => `The pot closes on ${d}. Pay your share here:`,
    before: (d) => `before ${d}:`,
    subject: (p, title) => (p.reminder ? `Reminder: the pot for ${title} closes on ${p.deadline}` : `${p.inviter} invites you to chip in ${p.share} for ${title}`),
    cta: 'Pay my share',
    ignore: 'If you were not expecting this invitation, you can ignore this e-mail.',
  },
  fr: {
    someone: 'Un proche',
    reminder: `Rappel${NBSP}: `,
    offer: (f) => `${f.inviter} vous invite à verser ${f.share}${f.title ? ` pour «${NBSP}${f.title}${NBSP}»` : ''}${f.merchant ? ` chez ${f.merchant} (total ${f.amount})` : ''}`,
    payBefore: (d) => `Réglez votre part avant le ${d}${NBSP}:`,
    closes: (d) => `La cagnotte se termine le ${d}. Réglez votre part ici${NBSP}:`,
    before: (d) => `avant le ${d}${NBSP}:`,
    subject: (p, title) => (p.reminder ? `Rappel${NBSP}: la cagnotte pour ${title} se termine le ${p.deadline}` : `${p.inviter} vous invite à verser ${p.share} pour ${title}`),
    cta: 'Payer ma part',
    ignore: 'Si vous n’attendiez pas cette invitation, vous pouvez ignorer cet e-mail.',
  },
};

/** A pledge message's values; the message greets the pledger (not the leader's `firstName`). */
function pledgeParts(msg: PledgeMessage): PledgeParts {
  const p = parts(msg, msg.pledgerName);
  return {
    ...p,
    reminder: msg.kind === 'reminder',
    inviter: oneLine(msg.inviterName, 60) || PLEDGE[p.lang].someone,
    share: formatMoney(msg.shareCents, msg.currency, p.lang),
    deadline: formatDateTime(msg.deadline, p.lang, msg.timeZone),
  };
}

/**
 * The pledge's main sentence and the line above the link, as in the e-mail: the invitation
 * (`<offer>.` / `Pay your share before <deadline>:`) or the reminder (`Reminder: <offer>.` /
 * `The pot closes on <deadline>. Pay your share here:`).
 */
function pledgeSentences(p: PledgeParts, f: PledgeFields): { intro: string; invite: string } {
  const w = PLEDGE[p.lang];
  return {
    intro: `${p.reminder ? w.reminder : ''}${w.offer(f)}.`,
    invite: p.reminder ? w.closes(f.deadline) : w.payBefore(f.deadline),
  };
}

/**
 * The e-mail inviting a pledger to pay their share (`kind: 'invitation'`), or reminding them
 * before the pot closes (`kind: 'reminder'`). The link is the pledger's own page.
 */
export function pledgeEmail(msg: PledgeMessage): PurchaseLinkEmail {
  const p = pledgeParts(msg);
  const w = PLEDGE[p.lang];
  return renderEmail(p.lang, p.url, {
    subject: w.subject(p, oneLine(p.title, 80)),
    greeting: COMMON[p.lang].greeting(p.firstName),
    ...pledgeSentences(p, p),
    cta: w.cta,
    ignore: w.ignore,
    signature: COMMON[p.lang].signature(p.merchant),
  });
}

/** Aim of the SMS text: one GSM-7 segment. */
export const SMS_TARGET_LENGTH = 160;

/**
 * How every SMS opens: who sends it (Chipin) and for which shop. A text from an unknown sender
 * that only carries a link reads like phishing (docs/messaging.md, "SMS").
 */
export function smsOpening(lang: EnFr, merchant: string): string {
  return lang === 'fr' ? `Chipin, pour ${merchant} :` : `Chipin, for ${merchant}:`;
}

const SMS: Record<EnFr, (merchant: string, title: string, amount: string, url: string) => string> = {
  en: (m, t, a, u) => `${smsOpening('en', m)} your purchase ${t ? `"${t}" ` : ''}(${a}) is ready. Pay here: ${u}`,
  fr: (m, t, a, u) => `${smsOpening('fr', m)} votre achat ${t ? `"${t}" ` : ''}(${a}) vous attend. Payez ici : ${u}`,
};

/**
 * Plain spaces and straight quotes (`« x »` → `"x"`): characters outside GSM-7 would turn the SMS into UCS-2
 * (70 characters a segment).
 */
export function smsSafe(value: string): string {
  return value
    .replace(/«[\u00a0\u202f ]?/g, '"')
    .replace(/[\u00a0\u202f ]?»/g, '"')
    .replace(/[\u00a0\u202f\u2007\u2009]/g, ' ')
    .replace(/[“”„]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/…/g, '...');
}

/** Titles are only shortened down to this many characters; below, they are left out. */
const MIN_SMS_TITLE = 12;

/**
 * The first text of `candidates` that fits in {@link SMS_TARGET_LENGTH} characters, else the last
 * one (the shortest the URL allows). A candidate may answer `undefined` to be skipped.
 */
export function firstFitting(candidates: ReadonlyArray<() => string | undefined>): string {
  let last = '';
  for (const candidate of candidates) {
    const text = candidate();
    if (text === undefined) continue;
    if (text.length <= SMS_TARGET_LENGTH) return text;
    last = text;
  }
  return last;
}

/** `withTitle` with `title` cut to the room left in one SMS, or `undefined` when too little is left. */
export function shortenedTitle(title: string, withTitle: (title: string) => string): string | undefined {
  const room = SMS_TARGET_LENGTH - (withTitle('x').length - 1);
  return room >= MIN_SMS_TITLE ? withTitle(oneLine(title, room, '...')) : undefined;
}

/**
 * The SMS carrying a purchase's payment link. Always contains the whole URL; the title, then the
 * merchant name, are shortened so that the text fits in {@link SMS_TARGET_LENGTH} characters when
 * the URL leaves room for it.
 */
export function purchaseLinkSms(msg: PurchaseLinkMessage): string {
  const p = parts(msg, msg.firstName);
  const amount = smsSafe(p.amount);
  const merchant = smsSafe(p.merchant);
  const title = smsSafe(p.title);
  const build = msg.offer && msg.offer.type !== 'SHARED' ? planSms(p.lang, msg.offer, msg.currency) : SMS[p.lang];
  return firstFitting([
    () => build(merchant, title, amount, p.url),
    () => shortenedTitle(title, (t) => build(merchant, t, amount, p.url)),
    () => build(merchant, '', amount, p.url),
    () => build(oneLine(merchant, 20, '...'), '', amount, p.url),
  ]);
}

/** `août` → `aout` (rectified spelling): û is not in GSM-7. */
export function smsDate(text: string): string {
  return smsSafe(text).replace(/û/g, 'u');
}

/**
 * The link SMS of an installment, deferred or down payment offer: what is charged today with the
 * fees and APR, what is authorised and when it is charged, or the deposit today and the balance's date. Without a title (the compact form the SMS falls
 * back to when the URL leaves too little room), shorter words.
 */
function planSms(lang: EnFr, offer: Exclude<OfferSummary, { type: 'SHARED' }>, currency: string): (merchant: string, title: string, amount: string, url: string) => string {
  const m = (cents: number) => smsSafe(formatMoney(cents, currency, lang));
  const fr = lang === 'fr';
  if (offer.type === 'INSTALLMENTS') {
    const n = offer.count;
    const first = m(offer.lines[0]!.amountCents);
    const fees = m(offer.credit.feesCents);
    const taeg = smsSafe(formatPercent(offer.credit.taegPercent, lang));
    if (fr) {
      return (mer, t, a, u) =>
        t
          ? `${smsOpening(lang, mer)} "${t}" (${a}) en ${n} fois, ${first} aujourd'hui dont ${fees} de frais, TAEG ${taeg}. Payez ici : ${u}`
          : `${smsOpening(lang, mer)} ${n}x ${a}, ${first} ce jour, frais ${fees}, TAEG ${taeg} : ${u}`;
    }
    return (mer, t, a, u) =>
      t
        ? `${smsOpening(lang, mer)} "${t}" (${a}) in ${n} installments, ${first} today incl. ${fees} fees, APR ${taeg}. Pay here: ${u}`
        : `${smsOpening(lang, mer)} ${n}x ${a}, ${first} today incl. ${fees} fees, APR ${taeg}: ${u}`;
  }
  if (offer.type === 'DOWN_PAYMENT') {
    const deposit = m(offer.deposit.amountCents);
    const balance = m(offer.balance.amountCents);
    const date = smsDate(formatDate(offer.balance.dueDate, lang));
    // A balance that costs something is a credit: its fees and APR are said, as for installments.
    const costs = offer.credit.feesCents > 0;
    const fees = m(offer.credit.feesCents);
    const taeg = smsSafe(formatPercent(offer.credit.taegPercent, lang));
    // With fees the text may take two SMS: the cost of a credit is never left out to fit in one.
    if (fr) {
      const cost = costs ? ` dont ${fees} de frais, TAEG ${taeg}` : '';
      return (mer, t, a, u) =>
        t
          ? `${smsOpening(lang, mer)} "${t}" (${a}), acompte ${deposit} aujourd'hui${cost}, solde ${balance} le ${date}. Payez ici : ${u}`
          : `${smsOpening(lang, mer)} acompte ${deposit} ce jour${cost}, solde ${balance} le ${date} : ${u}`;
    }
    const cost = costs ? ` incl. ${fees} fees, APR ${taeg}` : '';
    return (mer, t, a, u) =>
      t
        ? `${smsOpening(lang, mer)} "${t}" (${a}), deposit ${deposit} today${cost}, balance ${balance} on ${date}. Pay here: ${u}`
        : `${smsOpening(lang, mer)} deposit ${deposit} today${cost}, balance ${balance} on ${date}: ${u}`;
  }
  const total = m(offer.credit.totalDueCents);
  const date = smsDate(formatDate(offer.dueDate, lang));
  if (fr) {
    return (mer, t, a, u) =>
      t
        ? `${smsOpening(lang, mer)} "${t}" (${a}), rien n'est débité aujourd'hui. Autorisez ${total}, débités le ${date} : ${u}`
        : `${smsOpening(lang, mer)} autorisez ${total}, débités le ${date}, rien ce jour : ${u}`;
  }
  return (mer, t, a, u) =>
    t
      ? `${smsOpening(lang, mer)} "${t}" (${a}), nothing charged today. Authorise ${total}, charged on ${date}: ${u}`
      : `${smsOpening(lang, mer)} authorise ${total}, charged on ${date} (nothing today): ${u}`;
}

/**
 * The SMS inviting a pledger to pay their share, or reminding them: who sends it and for which
 * shop ({@link smsOpening}), the e-mail's sentences (the shop already named, so without its
 * `at <shop> (total …)`), then the whole URL. To fit in {@link SMS_TARGET_LENGTH} characters
 * when the URL leaves room, the title is shortened, then left out, then the sentences become
 * `<inviter> invites you to chip in <share> before <deadline>: <url>`, then the inviter's name,
 * then the shop's are shortened. Shop, inviter, share, deadline and URL are always there.
 */
export function pledgeSms(msg: PledgeMessage): string {
  const p = pledgeParts(msg);
  const w = PLEDGE[p.lang];
  const f: PledgeFields = {
    inviter: smsSafe(p.inviter),
    share: smsSafe(p.share),
    title: smsSafe(p.title),
    merchant: '',
    amount: smsSafe(p.amount),
    deadline: smsDate(p.deadline),
  };
  const shop = smsSafe(p.merchant);
  const full = (g: PledgeFields) => {
    const s = pledgeSentences(p, g);
    return `${smsSafe(`${smsOpening(p.lang, shop)} ${s.intro} ${s.invite}`)} ${p.url}`;
  };
  const compact = (inviter: string, merchant = shop) =>
    `${smsSafe(`${smsOpening(p.lang, merchant)} ${p.reminder ? w.reminder : ''}${w.offer({ ...f, inviter, title: '' })} ${w.before(f.deadline)}`)} ${p.url}`;
  return firstFitting([
    () => full(f),
    () => shortenedTitle(f.title, (title) => full({ ...f, title })),
    () => full({ ...f, title: '' }),
    () => compact(f.inviter),
    () => compact(oneLine(f.inviter, 20, '...')),
    () => compact(oneLine(f.inviter, 20, '...'), oneLine(shop, 20, '...')),
  ]);
}
