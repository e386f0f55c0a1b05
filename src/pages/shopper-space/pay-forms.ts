import { html, type SafeHtml } from '../../html/html.ts';
import { formatDate, formatMoney } from '../../i18n/format.ts';
import type { EnFr } from '../../i18n/lang.ts';
import { cardFields } from '../card-form.ts';
import { TEXT } from '../texts.ts';

/**
 * The leader's actions on a plan in their space (docs/shopper-space.md#paying-from-the-space). At
 * the top of the page: what the last one did (`?done=`, `?problem=`), focused on load (`autofocus`
 * on a `tabindex="-1"` box, so without script too), then each refused installment still to collect,
 * with its next try and its "pay now". Further down: "repay the rest" and the card change form.
 * Plain form posts with the session's CSRF token, no script.
 */

const T = {
  en: {
    title: 'Pay or change your card',
    payNow: (n: number, amount: string) => `Pay installment ${n} now (${amount})`,
    refusedTitle: (n: number, total: number) => `Payment ${n} of ${total} was refused`,
    refusedBalanceTitle: 'The balance was refused',
    refusedDue: (amount: string, date: string) => `${amount}, due on ${date}.`,
    retryOn: (date: string) => `We will try your card again on ${date}, unless you pay it now.`,
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
    payNow: (n: number, amount: string) => `Payer l’échéance ${n} maintenant (${amount})`,
    refusedTitle: (n: number, total: number) => `Le paiement ${n} sur ${total} a été refusé`,
    refusedBalanceTitle: 'Le solde a été refusé',
    refusedDue: (amount: string, date: string) => `${amount}, dû le ${date}.`,
    retryOn: (date: string) => `Nous réessaierons votre carte le ${date}, sauf si vous le payez maintenant.`,
    repay: (amount: string) => `Rembourser le reste maintenant (${amount}, sans autres frais)`,
    payBalance: (amount: string) => `Payer le solde maintenant (${amount})`,
    changeCard: 'Utiliser cette carte désormais',
    changeTitle: 'Changer la carte des prochains paiements',
    done: {
      paid: 'Paiement effectué. Merci.',
      repaid: 'Le reste est remboursé : rien d’autre ne sera débité.',
      card_changed: 'Votre nouvelle carte sera débitée désormais.',
    } as Record<string, string>,
    problem: {
      declined: 'Votre carte a été refusée : rien n’a été débité.',
      invalid_card: 'Vérifiez les informations de la carte.',
      nothing_to_pay: 'Il n’y a rien à payer maintenant.',
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
  /** Each refused installment still to collect; with its plan line's due date ('yyyy-mm-dd'), the plan's length, and its next try when one is recorded. */
  refused: { id: string; number: number; amountCents: number; dueDate?: string; total?: number; retryOn?: string }[];
  repayCents?: number;
  cardChange: boolean;
  /** A down payment: its one line left is the balance. */
  downPayment?: true;
  done?: string;
  problem?: string;
}

/** `top`: for the top of the page (what the last action did, the refused installments); `section`: the other actions. */
export function payForms(lang: EnFr, v: PayFormsInput): { top?: SafeHtml; section?: SafeHtml } {
  const t = T[lang];
  const m = (cents: number) => formatMoney(cents, v.currency, lang);
  const base = `/space/purchases/${v.uid}`;
  const done = v.done ? t.done[v.done] : undefined;
  const problem = !done && v.problem ? t.problem[v.problem] : undefined;
  const csrf = html`<input type="hidden" name="csrf" value="${v.csrf}">`;
  const result = done
    ? html`<div class="ok" role="status" id="pay-result" tabindex="-1" autofocus><strong>${done}</strong></div>`
    : problem
      ? html`<div class="alert" role="alert" id="pay-result" tabindex="-1" autofocus><strong>${problem}</strong></div>`
      : '';
  const refused = v.refused.map(
    (i) => html`<section class="alert overdue" aria-labelledby="overdue-${i.number}-title" id="overdue-${i.number}">
  <h2 id="overdue-${i.number}-title" style="font-size:1.05rem;margin:0 0 .4rem">${v.downPayment ? t.refusedBalanceTitle : t.refusedTitle(i.number, i.total ?? i.number)}</h2>
  ${i.dueDate ? html`<p style="margin:0 0 .4rem">${t.refusedDue(m(i.amountCents), formatDate(i.dueDate, lang))}${i.retryOn ? html` ${t.retryOn(formatDate(i.retryOn, lang))}` : ''}</p>` : ''}
  <form method="post" action="${base}/installments/${i.id}/pay" style="margin:0">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(i.amountCents)) : t.payNow(i.number, m(i.amountCents))}</button></form>
</section>`,
  );
  const top = result || refused.length > 0 ? html`${result}${refused}` : undefined;
  // A refused balance is paid by its own button above; "pay the balance now" is for one not yet due.
  const repay = v.repayCents !== undefined && !(v.downPayment && v.refused.length > 0) ? v.repayCents : undefined;
  if (repay === undefined && !v.cardChange) return top ? { top } : {};
  const section = html`<section class="card" aria-labelledby="pay-title" id="pay"><h2 id="pay-title">${t.title}</h2>
  ${
    repay !== undefined
      ? html`<form method="post" action="${base}/repay">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(repay)) : t.repay(m(repay))}</button></form>`
      : ''
  }
  ${
    v.cardChange
      ? html`<details><summary>${t.changeTitle}</summary><form method="post" action="${base}/card">${csrf}${cardFields(TEXT[lang])}<button class="button" type="submit">${t.changeCard}</button></form></details>`
      : ''
  }
</section>`;
  return { ...(top ? { top } : {}), section };
}
