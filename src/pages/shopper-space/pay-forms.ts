import { html, type SafeHtml } from '../../html/html.ts';
import { formatMoney } from '../../i18n/format.ts';
import type { Lang } from '../../i18n/lang.ts';
import { cardFields } from '../card-form.ts';
import { TEXT } from '../texts.ts';

/**
 * The leader's actions on a plan in their space (docs/shopper-space.md#paying-from-the-space): what
 * the last one did (`?done=`, `?problem=`), "pay now" for each refused installment, "repay the
 * rest", and the card change form. Plain form posts with the session's CSRF token, no script.
 */

const T = {
  en: {
    title: 'Pay or change your card',
    payNow: (n: number, amount: string) => `Pay installment ${n} now (${amount})`,
    repay: (amount: string) => `Repay the rest now (${amount}, no further fees)`,
    payBalance: (amount: string) => `Pay the balance now (${amount})`,
    changeCard: 'Use this card from now on',
    changeTitle: 'Change the card for the next payments',
    done: { paid: 'Paid. Thank you.', repaid: 'The rest is repaid: nothing more will be charged.', card_changed: 'Your new card will be charged from now on.' } as Record<
      string,
      string
    >,
    problem: {
      declined: 'Your card was refused: nothing was charged.',
      invalid_card: 'Please check the card details.',
      nothing_to_pay: 'There is nothing to pay now.',
      in_progress: 'A payment is already under way: try again in a moment.',
      not_payable: 'This purchase can no longer be paid here.',
      not_found: 'Payment not found.',
    } as Record<string, string>,
  },
  fr: {
    title: 'Payer ou changer de carte',
    payNow: (n: number, amount: string) => `Payer l'échéance ${n} maintenant (${amount})`,
    repay: (amount: string) => `Rembourser le reste maintenant (${amount}, sans autres frais)`,
    payBalance: (amount: string) => `Payer le solde maintenant (${amount})`,
    changeCard: 'Utiliser cette carte désormais',
    changeTitle: 'Changer la carte des prochains paiements',
    done: {
      paid: 'Paiement effectué. Merci.',
      repaid: "Le reste est remboursé : rien d'autre ne sera débité.",
      card_changed: 'Votre nouvelle carte sera débitée désormais.',
    } as Record<string, string>,
    problem: {
      declined: "Votre carte a été refusée : rien n'a été débité.",
      invalid_card: 'Vérifiez les informations de la carte.',
      nothing_to_pay: "Il n'y a rien à payer maintenant.",
      in_progress: 'Un paiement est déjà en cours : réessayez dans un instant.',
      not_payable: 'Cet achat ne peut plus être payé ici.',
      not_found: 'Paiement introuvable.',
    } as Record<string, string>,
  },
} as const;

export interface PayFormsInput {
  uid: string;
  csrf: string;
  currency: string;
  refused: { id: string; number: number; amountCents: number }[];
  repayCents?: number;
  cardChange: boolean;
  /** A down payment: its one line left is the balance. */
  downPayment?: true;
  done?: string;
  problem?: string;
}

export function payForms(lang: Lang, v: PayFormsInput): SafeHtml | undefined {
  const t = T[lang];
  const m = (cents: number) => formatMoney(cents, v.currency, lang);
  const base = `/space/purchases/${v.uid}`;
  const said = (v.done && t.done[v.done]) || (v.problem && t.problem[v.problem]);
  if (!said && v.refused.length === 0 && v.repayCents === undefined && !v.cardChange) return undefined;
  const csrf = html`<input type="hidden" name="csrf" value="${v.csrf}">`;
  return html`<section class="card" aria-labelledby="pay-title" id="pay"><h2 id="pay-title">${t.title}</h2>
  ${said ? html`<p role="status" id="pay-result"><strong>${said}</strong></p>` : ''}
  ${v.refused.map(
    (i) =>
      html`<form method="post" action="${base}/installments/${i.id}/pay">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(i.amountCents)) : t.payNow(i.number, m(i.amountCents))}</button></form>`,
  )}
  ${
    // A refused balance is paid by its own button above; "pay the balance now" is for one not yet due.
    v.repayCents !== undefined && !(v.downPayment && v.refused.length > 0)
      ? html`<form method="post" action="${base}/repay">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(v.repayCents)) : t.repay(m(v.repayCents))}</button></form>`
      : ''
  }
  ${
    v.cardChange
      ? html`<details><summary>${t.changeTitle}</summary><form method="post" action="${base}/card">${csrf}${cardFields(TEXT[lang])}<button class="button" type="submit">${t.changeCard}</button></form></details>`
      : ''
  }
</section>`;
}
