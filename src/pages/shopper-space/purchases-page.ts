import { html } from '../../html/html.ts';
import { V1_STATE, type PurchaseState } from '../../domain/purchase-states.ts';
import { formatDate, formatMoney } from '../../i18n/format.ts';
import type { Lang } from '../../i18n/lang.ts';
import { stateText, TEXT } from '../texts.ts';
import { spaceLayout } from './layout.ts';
import { SPACE_TEXT } from './texts.ts';

/** One purchase of the shopper's list. */
export interface SpaceListItem {
  /** `pur_…`: the link to its page. */
  purchaseUid: string;
  merchantName: string;
  title: string;
  amountCents: number;
  currency: string;
  state: PurchaseState;
  createdAt: Date;
  role: 'leader' | 'pledger';
  /** The pledger's share. */
  shareCents?: number;
  /** The offer's type: a 3x/4x or a deposit is charged, not only authorised. */
  offerType: string;
  /** The leader's plan has a refused installment still to collect. */
  overdue: boolean;
}

/** The purchase's state as the shopper reads it: what was done for its kind of plan, or "payment overdue" (src/pages/texts.ts). */
export function stateLabel(lang: Lang, p: { state: PurchaseState; offerType: string; overdue: boolean }): string {
  return stateText(TEXT[lang], V1_STATE[p.state], p.offerType, p.overdue);
}

/** Nothing is bought while nothing is paid: a purchase still CREATED is "your purchase", started on its day. */
const unpaid = (p: { state: PurchaseState }) => p.state === 'CREATED';

export function roleLine(lang: Lang, p: { role: 'leader' | 'pledger'; state: PurchaseState }): string {
  const t = SPACE_TEXT[lang];
  if (p.role === 'pledger') return t.rolePledger;
  return unpaid(p) ? t.roleLeaderUnpaid : t.roleLeader;
}

export function dateLine(lang: Lang, p: { state: PurchaseState }, date: string): string {
  return unpaid(p) ? SPACE_TEXT[lang].startedOn(date) : SPACE_TEXT[lang].boughtOn(date);
}

/** The day a purchase was made, as the rest of the space writes a day (`1er août 2026`, `1. August 2026`). */
function day(date: Date, lang: Lang): string {
  return formatDate(date.toISOString().slice(0, 10), lang);
}

/** The shopper's purchases, across shops, newest first: readable without script. */
export function purchasesPage(lang: Lang, v: { who: string; csrf: string; items: SpaceListItem[] }): string {
  const t = SPACE_TEXT[lang];
  const items = v.items.map(
    (p) => html`<li class="card"><a href="/space/purchases/${p.purchaseUid}">
  <span class="merchant">${t.soldBy(p.merchantName)}</span><br>
  <span class="title">${p.title}</span>
  <span class="amount" style="display:block;font-size:1.3rem">${formatMoney(p.amountCents, p.currency, lang)}</span>
  <span class="state${p.overdue ? ' overdue' : ''}">${stateLabel(lang, p)}</span> · ${roleLine(lang, p)}${
    p.shareCents !== undefined ? html` · ${t.yourShare(formatMoney(p.shareCents, p.currency, lang))}` : ''
  }<br>
  <span class="muted">${dateLine(lang, p, day(p.createdAt, lang))}</span></a></li>`,
  );
  const body = html`<h1>${t.spaceTitle}</h1><p>${t.listIntro}</p>${
    v.items.length === 0 ? html`<p class="card">${t.listEmpty}</p>` : html`<ul class="purchase-list">${items}</ul>`
  }`;
  return spaceLayout(lang, t.spaceTitle, body, { signedIn: { who: v.who, csrf: v.csrf }, switchBase: '/space' });
}
