import { formatMoney } from '../domain/money.ts';
import { langOf, type Lang } from '../http/i18n.ts';
import type { PurchaseLinkMessage } from './messenger.ts';

/**
 * Texts of the messages sent to shoppers, in the purchase's language (fr and en complete; every
 * other locale falls back to English). Pure functions: no I/O, no clock.
 *
 * Merchant-supplied values (merchant name, title, first name) are untrusted: they are flattened to
 * one line everywhere (no header or line injection) and HTML-escaped in the HTML part.
 */

export interface PurchaseLinkEmail {
  lang: Lang;
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** One line, no control characters, trimmed, at most `max` characters (an ellipsis marks a cut). */
export function oneLine(value: string, max = 200, ellipsis = '…'): string {
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, Math.max(0, max - ellipsis.length)).trimEnd() + ellipsis;
}

interface Parts {
  lang: Lang;
  merchant: string;
  title: string;
  amount: string;
  url: string;
  firstName: string | undefined;
}

function parts(msg: PurchaseLinkMessage): Parts {
  const lang = langOf(msg.language);
  const firstName = msg.firstName === undefined ? undefined : oneLine(msg.firstName, 60);
  return {
    lang,
    merchant: oneLine(msg.merchantName, 100) || 'Chipin',
    title: oneLine(msg.title, 150),
    amount: formatMoney(msg.amountCents, msg.currency, lang),
    url: msg.url,
    firstName: firstName || undefined,
  };
}

const NBSP = '\u00a0';

const EMAIL: Record<Lang, (p: Parts) => { subject: string; greeting: string; intro: string; invite: string; cta: string; ignore: string; signature: string }> = {
  en: (p) => ({
    subject: `${p.merchant}: your payment link for ${oneLine(p.title, 80)}`,
    greeting: p.firstName ? `Hello ${p.firstName},` : 'Hello,',
    intro: `${p.merchant} has prepared your purchase "${p.title}" for ${p.amount}.`,
    invite: 'Pay for it on your own or with friends at this link:',
    cta: 'Pay now',
    ignore: 'If you did not ask for this purchase, you can ignore this e-mail.',
    signature: `Chipin, on behalf of ${p.merchant}`,
  }),
  fr: (p) => ({
    subject: `${p.merchant}${NBSP}: votre lien de paiement pour ${oneLine(p.title, 80)}`,
    greeting: p.firstName ? `Bonjour ${p.firstName},` : 'Bonjour,',
    intro: `${p.merchant} a préparé votre achat «${NBSP}${p.title}${NBSP}» d'un montant de ${p.amount}.`,
    invite: `Réglez-le seul ou à plusieurs en suivant ce lien${NBSP}:`,
    cta: 'Payer maintenant',
    ignore: "Si vous n'êtes pas à l'origine de cet achat, vous pouvez ignorer cet e-mail.",
    signature: `Chipin, pour le compte de ${p.merchant}`,
  }),
};

/** The e-mail carrying a purchase's payment link: subject, plain text and an escaped HTML version. */
export function purchaseLinkEmail(msg: PurchaseLinkMessage): PurchaseLinkEmail {
  const p = parts(msg);
  const t = EMAIL[p.lang](p);
  const text = [t.greeting, '', t.intro, '', t.invite, p.url, '', t.ignore, '', '-- ', t.signature, ''].join('\n');
  const e = escapeHtml;
  const html = `<!DOCTYPE html>
<html lang="${p.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(t.subject)}</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a;background:#ffffff">
<p>${e(t.greeting)}</p>
<p>${e(t.intro)}</p>
<p>${e(t.invite)}</p>
<p><a href="${e(p.url)}" style="display:inline-block;padding:12px 20px;background:#0b5cad;color:#ffffff;text-decoration:none;border-radius:4px">${e(t.cta)}</a></p>
<p style="font-size:13px;color:#555555;word-break:break-all"><a href="${e(p.url)}">${e(p.url)}</a></p>
<p style="font-size:13px;color:#555555">${e(t.ignore)}</p>
<p style="font-size:13px;color:#555555">${e(t.signature)}</p>
</body>
</html>
`;
  return { lang: p.lang, subject: oneLine(t.subject, 200), text, html };
}

/** Aim of the SMS text: one GSM-7 segment. */
export const SMS_TARGET_LENGTH = 160;

const SMS: Record<Lang, (merchant: string, title: string, amount: string, url: string) => string> = {
  en: (m, t, a, u) => (t ? `${m}: your purchase "${t}" (${a}) is ready. Pay here: ${u}` : `${m}: your purchase (${a}) is ready. Pay here: ${u}`),
  fr: (m, t, a, u) => (t ? `${m} : votre achat "${t}" (${a}) vous attend. Payez ici : ${u}` : `${m} : votre achat (${a}) vous attend. Payez ici : ${u}`),
};

/** Plain spaces and straight quotes: characters outside GSM-7 would turn the SMS into UCS-2 (70 characters a segment). */
function smsSafe(value: string): string {
  return value.replace(/[\u00a0\u202f\u2007\u2009]/g, ' ').replace(/[«»“”„]/g, '"').replace(/[‘’]/g, "'").replace(/…/g, '...');
}

/**
 * The SMS carrying a purchase's payment link. Always contains the whole URL; the title, then the
 * merchant name, are shortened so that the text fits in {@link SMS_TARGET_LENGTH} characters when
 * the URL leaves room for it.
 */
export function purchaseLinkSms(msg: PurchaseLinkMessage): string {
  const p = parts(msg);
  const build = SMS[p.lang];
  const amount = smsSafe(p.amount);
  const merchant = smsSafe(p.merchant);
  const title = smsSafe(p.title);
  const fits = (s: string) => s.length <= SMS_TARGET_LENGTH;

  const full = build(merchant, title, amount, p.url);
  if (fits(full)) return full;
  // Shorten the title to what is left, keeping at least a few meaningful characters.
  const room = SMS_TARGET_LENGTH - build(merchant, '', amount, p.url).length - 3; // 3: the quotes and space of the title
  if (room >= 12) return build(merchant, oneLine(title, room, '...'), amount, p.url);
  const noTitle = build(merchant, '', amount, p.url);
  return fits(noTitle) ? noTitle : build(oneLine(merchant, 20, '...'), '', amount, p.url);
}
