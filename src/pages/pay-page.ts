import { formatMoney } from '../domain/money.ts';
import { V1_STATE } from '../domain/purchase-states.ts';
import type { Lang } from '../http/i18n.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { esc, layout } from './html.ts';

const TEXT = {
  en: {
    soldBy: 'Sold by',
    basket: 'Your basket',
    total: 'Total',
    notFoundTitle: 'Payment link not found',
    notFound: 'This payment link does not exist. Check the link you received, or ask the shop for a new one.',
    states: {
      INITIALIZED: 'Waiting for payment',
      CANCELLED: 'Cancelled',
      FAILED: 'Payment failed',
      REFUNDED: 'Refunded',
      LEADER_PROCESSED: 'Payment authorised',
      SUCCESSFUL: 'Paid',
    },
  },
  fr: {
    soldBy: 'Vendu par',
    basket: 'Votre panier',
    total: 'Total',
    notFoundTitle: 'Lien de paiement introuvable',
    notFound: "Ce lien de paiement n'existe pas. Vérifiez le lien reçu ou demandez-en un nouveau au marchand.",
    states: {
      INITIALIZED: 'En attente de paiement',
      CANCELLED: 'Annulé',
      FAILED: 'Paiement échoué',
      REFUNDED: 'Remboursé',
      LEADER_PROCESSED: 'Paiement autorisé',
      SUCCESSFUL: 'Payé',
    },
  },
} as const;

/** The hosted page behind `payment_url`: what is bought, from whom, for how much. */
export function payPage(p: Purchase & { merchantName: string }, lang: Lang): string {
  const t = TEXT[lang];
  const money = (cents: number, currency: string) => esc(formatMoney(cents, currency, lang));
  const products = p.products.length
    ? `<section class="card" aria-labelledby="basket"><h2 id="basket">${t.basket}</h2><table>${p.products
        .map((x) => `<tr><td>${esc(x.label ?? x.ref ?? '')}</td><td class="num">${money(x.amount, x.currency)}</td></tr>`)
        .join('')}</table></section>`
    : '';
  const body = `
<section class="card">
  <p class="merchant">${t.soldBy} <strong>${esc(p.merchantName)}</strong></p>
  ${p.pictureUrl ? `<img class="picture" src="${esc(p.pictureUrl)}" alt="">` : ''}
  <h1>${esc(p.title)}</h1>
  ${p.subtitle ? `<p class="muted">${esc(p.subtitle)}</p>` : ''}
  ${p.description ? `<p>${esc(p.description)}</p>` : ''}
  <p class="amount" aria-label="${t.total}">${money(p.amountCents, p.currency)}</p>
  <p><span class="state" role="status">${esc(t.states[V1_STATE[p.state]])}</span></p>
</section>${products}`;
  return layout(p.language.replace('_', '-'), `${p.title} · ${p.merchantName}`, body);
}

export function payPageNotFound(lang: Lang): string {
  const t = TEXT[lang];
  return layout(lang, t.notFoundTitle, `<section class="card"><h1>${t.notFoundTitle}</h1><p>${t.notFound}</p></section>`);
}
