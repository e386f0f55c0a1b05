import { formatDate, formatMoney } from '../i18n/format.ts';
import { langOf, type Lang } from '../i18n/lang.ts';
import type { ShopperNotice } from './messenger.ts';
import { oneLine } from './templates.ts';
import { MESSAGE_TEXT, type MessageTexts } from './texts.ts';

/** The words of the receipts and notices in one language. */
export type NoticeText = MessageTexts['notice'];

/** What the e-mail and the SMS of a notice say alike, in the recipient's language, untrusted values flattened to one line. */
export interface NoticeValues {
  lang: Lang;
  /** The words of that language: the notices' own, and those every message shares. */
  t: NoticeText;
  words: MessageTexts;
  merchant: string;
  title: string;
  amount: string;
  m(cents: number): string;
  date(isoDate: string): string;
  /** `your card ending 4242` / `votre carte Visa se terminant par 4242`. */
  card: string;
}

export function noticeValues(n: ShopperNotice): NoticeValues {
  const lang = langOf(n.language);
  const words = MESSAGE_TEXT[lang];
  const t = words.notice;
  const last4 = n.card?.last4.replace(/\D/g, '').slice(-4);
  const brand = n.card ? brandLabel(n.card.brand) : '';
  return {
    lang,
    t,
    words,
    merchant: oneLine(n.merchantName, 100) || 'Chipin',
    title: oneLine(n.title, 150),
    amount: formatMoney(n.amountCents, n.currency, lang),
    m: (cents) => formatMoney(cents, n.currency, lang),
    date: (d) => formatDate(d, lang),
    card: last4 ? t.yourCard(brand, last4) : t.anyCard,
  };
}

/** `visa` → `Visa`; nothing for an unknown brand. */
export function brandLabel(brand: string): string {
  const b = oneLine(brand, 20);
  return !b || b.toLowerCase() === 'unknown' ? '' : b.charAt(0).toUpperCase() + b.slice(1);
}
