import { html } from '../html/html.ts';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '../i18n/format.ts';
import { CREDIT_WORDS } from '../i18n/credit-words.ts';
import { langOf, type Lang } from '../i18n/lang.ts';
import type { CreditTerms, OfferSummary, PledgeMessage, PurchaseLinkMessage } from './messenger.ts';
import { MESSAGE_TEXT, type MessageTexts } from './texts.ts';

/**
 * Texts of the messages sent to shoppers, in the recipient's language (one of the six: `lang` of
 * the message, chosen by src/i18n/shopper-lang.ts's rule; their words in `texts.ts`). Pure
 * functions: no I/O, no clock.
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
  lang: Lang;
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
  lang: Lang;
  /** The words of that language. */
  t: MessageTexts;
  merchant: string;
  title: string;
  amount: string;
  url: string;
  /** Whom the message greets, when known. */
  firstName: string | undefined;
}

/** The message's values, flattened and formatted; `greetName` is whom the message greets. */
function parts(msg: PurchaseLinkMessage, greetName: string | undefined): Parts {
  const lang = langOf(msg.language);
  const firstName = greetName === undefined ? undefined : oneLine(greetName, 60);
  return {
    lang,
    t: MESSAGE_TEXT[lang],
    merchant: oneLine(msg.merchantName, 100) || 'Chipin',
    title: oneLine(msg.title, 150),
    amount: formatMoney(msg.amountCents, msg.currency, lang),
    url: msg.url,
    firstName: firstName || undefined,
  };
}

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
export function figuresText(f: Figures, lang: Lang): string {
  const colon = MESSAGE_TEXT[lang].colon;
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
function renderEmail(lang: Lang, url: string, t: EmailTexts): PurchaseLinkEmail {
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

/** The link e-mail of a pot: "on your own or with friends". */
function sharedEmailTexts(p: Parts): EmailTexts {
  const w = p.t.link;
  return {
    subject: w.subject(p.merchant, oneLine(p.title, 80)),
    greeting: p.t.greeting(p.firstName),
    intro: w.intro(p.merchant, p.title, p.amount),
    invite: w.invite,
    cta: w.cta,
    ignore: w.ignore,
    signature: p.t.signature(p.merchant),
  };
}

/**
 * The credit an installment or deferred offer is, in figures: the same on the checkout page, in
 * the same legal words (the credit catalogue: src/i18n/credit-words.ts), with its mentions
 * (lender, right of withdrawal where it applies, the statutory warning under them).
 */
export function creditFigures(credit: CreditTerms, currency: string, lang: Lang): Figures {
  const m = (cents: number) => formatMoney(cents, currency, lang);
  const w = (key: Parameters<typeof CREDIT_WORDS.text>[1], values?: Parameters<typeof CREDIT_WORDS.text>[2]) => CREDIT_WORDS.text(lang, key, values);
  const c = credit.mentions;
  const days = c && c.withdrawalDays > 0 ? c.withdrawalDays : undefined;
  return {
    heading: MESSAGE_TEXT[lang].credit,
    rows: [
      [w('amountFinanced'), m(credit.financedCents)],
      [w('cost'), m(credit.feesCents)],
      [w('totalDue'), m(credit.totalDueCents)],
      [w('fixedApr'), formatPercent(credit.taegPercent, lang)],
    ],
    notes: [...(c ? [w('lender', { lender: c.lender })] : []), ...(days ? [w('withdrawal', { days })] : [])],
    ...(c ? { warning: w('warning') } : {}),
  };
}

/** The plan's payments: today's first, then each date. */
export function planFigures(lines: ReadonlyArray<{ dueDate: string; amountCents: number }>, currency: string, lang: Lang, firstIsToday: boolean): Figures {
  const t = MESSAGE_TEXT[lang];
  return {
    heading: t.schedule,
    rows: lines.map((l, k) => [k === 0 && firstIsToday ? t.today : formatDate(l.dueDate, lang), formatMoney(l.amountCents, currency, lang)] as const),
  };
}

/** How the link e-mail tells an installment, deferred or down payment offer (the shared pot keeps {@link sharedEmailTexts}). */
function planEmailTexts(p: Parts, offer: Exclude<OfferSummary, { type: 'SHARED' }>, currency: string): EmailTexts {
  const m = (cents: number) => formatMoney(cents, currency, p.lang);
  const base = sharedEmailTexts(p);
  const w = p.t.link;
  const { merchant, title, amount } = p;
  if (offer.type === 'INSTALLMENTS') {
    const first = m(offer.lines[0]!.amountCents);
    return {
      ...base,
      intro: w.installments.intro({ merchant, title, amount, n: offer.count, first, fees: m(offer.credit.feesCents) }),
      figures: [planFigures(offer.lines, currency, p.lang, true), creditFigures(offer.credit, currency, p.lang)],
      invite: w.installments.invite(first),
      cta: w.installments.cta(first),
    };
  }
  if (offer.type === 'DOWN_PAYMENT') {
    // docs/schedules.md#down-payment: the deposit paid now (its fees included), the balance and its
    // date; the credit's figures when the balance costs something.
    const deposit = m(offer.deposit.amountCents);
    const fees = offer.credit.feesCents > 0 ? m(offer.credit.feesCents) : undefined;
    return {
      ...base,
      intro: w.downPayment.intro({
        merchant,
        title,
        amount,
        deposit,
        balance: m(offer.balance.amountCents),
        date: formatDate(offer.balance.dueDate, p.lang),
        fees,
        credit: offer.credit.mentions !== undefined,
      }),
      figures: [planFigures([offer.deposit, offer.balance], currency, p.lang, true), ...(offer.credit.feesCents > 0 ? [creditFigures(offer.credit, currency, p.lang)] : [])],
      invite: w.downPayment.invite(deposit),
      cta: w.downPayment.cta(deposit),
    };
  }
  const total = m(offer.credit.totalDueCents);
  const date = formatDate(offer.dueDate, p.lang);
  return {
    ...base,
    intro: w.deferred.intro({ merchant, title, amount, total, date }),
    figures: offer.credit.feesCents > 0 ? [creditFigures(offer.credit, currency, p.lang)] : [],
    invite: w.deferred.invite(total, date),
    cta: w.deferred.cta(total),
  };
}

/**
 * The e-mail carrying a purchase's payment link: subject, plain text and an escaped HTML version.
 * It says what the offer is: a pot ("on your own or with friends"), an installment plan with its
 * schedule and credit figures, or a deferred payment ("Authorise … — charged on <date>").
 */
export function purchaseLinkEmail(msg: PurchaseLinkMessage): PurchaseLinkEmail {
  const p = parts(msg, msg.firstName);
  const texts = msg.offer && msg.offer.type !== 'SHARED' ? planEmailTexts(p, msg.offer, msg.currency) : sharedEmailTexts(p);
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

/** A pledge message's values; the message greets the pledger (not the leader's `firstName`). */
function pledgeParts(msg: PledgeMessage): PledgeParts {
  const p = parts(msg, msg.pledgerName);
  return {
    ...p,
    reminder: msg.kind === 'reminder',
    inviter: oneLine(msg.inviterName, 60) || p.t.pledge.someone,
    share: formatMoney(msg.shareCents, msg.currency, p.lang),
    deadline: formatDateTime(msg.deadline, p.lang, msg.timeZone),
  };
}

/**
 * The e-mail inviting a pledger to pay their share (`kind: 'invitation'`), or reminding them
 * before the pot closes (`kind: 'reminder'`). The link is the pledger's own page.
 */
export function pledgeEmail(msg: PledgeMessage): PurchaseLinkEmail {
  const p = pledgeParts(msg);
  const w = p.t.pledge;
  return renderEmail(p.lang, p.url, {
    subject: w.subject(p.reminder, { ...p, title: oneLine(p.title, 80) }),
    greeting: p.t.greeting(p.firstName),
    intro: w.intro(p.reminder, p),
    invite: w.invite(p.reminder, p.deadline),
    cta: w.cta,
    ignore: w.ignore,
    signature: p.t.signature(p.merchant),
  });
}

/** Aim of the SMS text: one GSM-7 segment. */
export const SMS_TARGET_LENGTH = 160;

/**
 * How every SMS opens: who sends it (Chipin) and for which shop. A text from an unknown sender
 * that only carries a link reads like phishing (docs/messaging.md, "SMS").
 */
export function smsOpening(lang: Lang, merchant: string): string {
  return MESSAGE_TEXT[lang].sms.opening(merchant);
}

/**
 * The GSM 03.38 default alphabet (3GPP TS 23.038): its basic set, then its extension table (each
 * of those costs two of a segment's 160 septets). A text of these characters only goes as GSM-7;
 * one character outside turns the whole SMS into UCS-2, 70 characters a segment.
 */
const GSM7_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '^{}\\[~]|€\f';
const GSM7 = new Set([...GSM7_BASIC, ...GSM7_EXTENSION]);

/** Whether `text` is written in the GSM 03.38 alphabet alone (basic set and extension table). */
export function isGsm7(text: string): boolean {
  for (const c of text) if (!GSM7.has(c)) return false;
  return true;
}

/** Letters and signs that lose no meaning in a plainer GSM-7 spelling, where taking off accents is not enough. */
const GSM7_SPELLING: Readonly<Record<string, string>> = {
  '\u00a0': ' ',
  '\u2007': ' ',
  '\u2009': ' ',
  '\u202f': ' ',
  '\t': ' ',
  '“': '"',
  '”': '"',
  '„': '"',
  '«': '"',
  '»': '"',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '…': '...',
  '–': '-',
  '—': '-',
  '−': '-',
  ç: 'c',
  œ: 'oe',
  Œ: 'OE',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ı: 'i',
  þ: 'th',
  ð: 'd',
};

/**
 * The text in the GSM 03.38 alphabet (basic set and extension table: {@link isGsm7}), so that an
 * SMS is never forced into 70-character UCS-2 segments by a letter: French quotes become straight
 * ones (`« x »` → `"x"`), special spaces plain ones, and a letter outside the alphabet is written
 * without its accent (`á`, `í`, `ó`, `ú`, `ê`, `û`, `ë` → `a`, `i`, `o`, `u`, `e`, `u`, `e`;
 * `ç` → `c`: only the capital `Ç` is GSM-7), while those in it stay (`é`, `è`, `à`, `ä`, `ö`,
 * `ü`, `ß`, `ñ`, `¿`, `¡`). Anything left (an emoji, another script) becomes `?`.
 */
export function smsSafe(value: string): string {
  let out = '';
  const text = value.replace(/«[\u00a0\u202f ]?/g, '"').replace(/[\u00a0\u202f ]?»/g, '"');
  for (const c of text) {
    if (GSM7.has(c)) {
      out += c;
      continue;
    }
    const spelt = GSM7_SPELLING[c];
    if (spelt !== undefined) {
      out += spelt;
      continue;
    }
    const bare = c.normalize('NFD').replace(/\p{M}+/gu, '');
    out += bare !== '' && isGsm7(bare) ? bare : '?';
  }
  return out;
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

/** An SMS's text from `merchant` (its opening) and `title` ('' when left out to fit), in GSM-7. */
type SmsBuild = (merchant: string, title: string) => string;

/**
 * The SMS carrying a purchase's payment link. Always contains the whole URL; the title, then the
 * merchant name, are shortened so that the text fits in {@link SMS_TARGET_LENGTH} characters when
 * the URL leaves room for it. An installment, deferred or down payment offer says what is charged
 * today with the fees and APR, what is authorised and when it is charged, or the deposit today and
 * the balance's date; without a title (the compact form the SMS falls back to when the URL leaves
 * too little room), in shorter words.
 */
export function purchaseLinkSms(msg: PurchaseLinkMessage): string {
  const p = parts(msg, msg.firstName);
  const sms = p.t.sms;
  const amount = smsSafe(p.amount);
  const merchant = smsSafe(p.merchant);
  const title = smsSafe(p.title);
  const url = p.url;
  const m = (cents: number) => smsSafe(formatMoney(cents, msg.currency, p.lang));
  const apr = (offer: Exclude<OfferSummary, { type: 'SHARED' }>) => smsSafe(formatPercent(offer.credit.taegPercent, p.lang));
  const offer = msg.offer;
  const text: (opening: string, title: string) => string =
    !offer || offer.type === 'SHARED'
      ? (opening, title) => sms.link.shared({ opening, title, amount, url })
      : offer.type === 'INSTALLMENTS'
        ? (opening, title) =>
            sms.link.installments({ opening, title, amount, n: offer.count, first: m(offer.lines[0]!.amountCents), fees: m(offer.credit.feesCents), apr: apr(offer), url })
        : offer.type === 'DOWN_PAYMENT'
          ? // A balance that costs something is a credit: its fees and APR are said, as for
            // installments; the text may then take two SMS, the cost of a credit never left out to fit in one.
            (opening, title) =>
              sms.link.downPayment({
                opening,
                title,
                amount,
                deposit: m(offer.deposit.amountCents),
                fees: offer.credit.feesCents > 0 ? m(offer.credit.feesCents) : undefined,
                apr: apr(offer),
                balance: m(offer.balance.amountCents),
                date: smsSafe(formatDate(offer.balance.dueDate, p.lang)),
                url,
              })
          : (opening, title) => sms.link.deferred({ opening, title, amount, total: m(offer.credit.totalDueCents), date: smsSafe(formatDate(offer.dueDate, p.lang)), url });
  const build: SmsBuild = (shop, t) => smsSafe(text(smsOpening(p.lang, shop), t));
  return firstFitting([
    () => build(merchant, title),
    () => shortenedTitle(title, (t) => build(merchant, t)),
    () => build(merchant, ''),
    () => build(oneLine(merchant, 20, '...'), ''),
  ]);
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
  const sms = p.t.sms.pledge;
  const inviter = smsSafe(p.inviter);
  const share = smsSafe(p.share);
  const title = smsSafe(p.title);
  const deadline = smsSafe(p.deadline);
  const shop = smsSafe(p.merchant);
  const url = p.url;
  const full = (t: string) => smsSafe(sms.full(p.reminder, { opening: smsOpening(p.lang, shop), inviter, share, title: t, deadline, url }));
  const compact = (who: string, merchant = shop) => smsSafe(sms.compact(p.reminder, { opening: smsOpening(p.lang, merchant), inviter: who, share, deadline, url }));
  return firstFitting([
    () => full(title),
    () => shortenedTitle(title, full),
    () => full(''),
    () => compact(inviter),
    () => compact(oneLine(inviter, 20, '...')),
    () => compact(oneLine(inviter, 20, '...'), oneLine(shop, 20, '...')),
  ]);
}
