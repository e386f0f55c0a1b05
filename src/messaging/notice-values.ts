import { formatDate, formatMoney } from '../i18n/format.ts';
import { langOf, type EnFr, EN_FR } from '../i18n/lang.ts';
import type { ShopperNotice } from './messenger.ts';
import { NOTICE_TEXT_EN } from './notice-texts-en.ts';
import { NOTICE_TEXT_FR } from './notice-texts-fr.ts';
import { oneLine } from './templates.ts';

/** The words of the receipts and notices in one language. */
export type NoticeText = typeof NOTICE_TEXT_EN;

const NOTICE_TEXT: Record<EnFr, NoticeText> = { en: NOTICE_TEXT_EN, fr: NOTICE_TEXT_FR };

/** What the e-mail and the SMS of a notice say alike, in the purchase's language (fr, else en), untrusted values flattened to one line. */
export interface NoticeValues {
  lang: EnFr;
  /** The words of that language. */
  t: NoticeText;
  merchant: string;
  title: string;
  amount: string;
  m(cents: number): string;
  date(isoDate: string): string;
  /** `your card ending 4242` / `votre carte Visa se terminant par 4242`. */
  card: string;
}

export function noticeValues(n: ShopperNotice): NoticeValues {
  const lang = langOf(n.language, EN_FR);
  const t = NOTICE_TEXT[lang];
  const last4 = n.card?.last4.replace(/\D/g, '').slice(-4);
  const brand = n.card ? brandLabel(n.card.brand) : '';
  return {
    lang,
    t,
    merchant: oneLine(n.merchantName, 100) || 'Chipin',
    title: oneLine(n.title, 150),
    amount: formatMoney(n.amountCents, n.currency, lang),
    m: (cents) => formatMoney(cents, n.currency, lang),
    date: (d) => formatDate(d, lang),
    card: last4 ? t.yourCard(brand, last4).replace('  ', ' ') : t.anyCard,
  };
}

/** `visa` → `Visa`; nothing for an unknown brand. */
export function brandLabel(brand: string): string {
  const b = oneLine(brand, 20);
  return !b || b.toLowerCase() === 'unknown' ? '' : b.charAt(0).toUpperCase() + b.slice(1);
}
