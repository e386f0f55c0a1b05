import type { ScheduleErrorCode } from '../../../domain/schedule.ts';
import type { OfferRefusal } from '../../../use-cases/merchant-setup/edit-offer.ts';
import { OFFER_PARAMETER_TEXT } from '../offer-parameter-texts.ts';

/** How a refused offer edit shows a bound of its field (an amount, a rate, hours) and an amount. */
type RefusalShow = { bound: (n: number) => string; money: (cents: number) => string };

const SCHEDULE_REFUSAL_EN: Record<ScheduleErrorCode, string> = {
  amount_below_minimum: 'the amount is below the offer’s minimum',
  amount_above_maximum: 'the amount is above the offer’s maximum',
  amount_above_funding_cap: 'the amount to finance is above the funding cap',
  usury_ceiling_exceeded: 'its TAEG would exceed the usury ceiling',
  invalid_amount: 'the amount is not valid',
  invalid_date: 'the date is not valid',
  invalid_second_installment_date: 'the second installment date is not possible',
  invalid_deferred_date: 'the deferred payment date is not possible',
  invalid_balance_payment_date: 'the balance payment date is not possible',
};

const SCHEDULE_REFUSAL_FR: Record<ScheduleErrorCode, string> = {
  amount_below_minimum: 'le montant est sous le minimum de l’offre',
  amount_above_maximum: 'le montant dépasse le maximum de l’offre',
  amount_above_funding_cap: 'le montant à financer dépasse le plafond de financement',
  usury_ceiling_exceeded: 'son TAEG dépasserait le taux d’usure',
  invalid_amount: 'le montant n’est pas valide',
  invalid_date: 'la date n’est pas valide',
  invalid_second_installment_date: 'la date de la deuxième échéance n’est pas possible',
  invalid_deferred_date: 'la date du paiement différé n’est pas possible',
  invalid_balance_payment_date: 'la date de paiement du solde n’est pas possible',
};

function offerRefusalEn(r: OfferRefusal, show: RefusalShow): string {
  switch (r.code) {
    case 'not_integer':
      return 'must be a whole number';
    case 'out_of_range':
      return `must be between ${show.bound(r.min)} and ${show.bound(r.max)}`;
    case 'pot_deadline_shared_only':
      return 'only a pot offer has a pot deadline';
    case 'credit_mentions_credit_only':
      return 'only a credit offer (installments, deferred payment) shows credit mentions';
    case 'credit_lender_shape':
      return `must be one line of 1 to ${r.max} characters`;
    case 'min_above_max':
      return `the minimum (${show.money(r.min)}) must not be above the maximum (${show.money(r.max)})`;
    case 'unsellable':
      return `no purchase of ${show.money(r.amountCents)} could be sold with these terms: ${SCHEDULE_REFUSAL_EN[r.schedule]}`;
    case 'sandbox_in_production':
      return 'a production offer needs a PSP account (the built-in sandbox PSP is refused in production)';
    case 'psp_currency':
      return `${r.psp} takes ${r.takes.join(', ')} only; this offer is in ${r.currency}`;
    case 'unpaid_purchases':
      return `cannot change while ${r.count} purchase(s) of this offer await their leader’s payment: their schedule is computed from it then (retry once they are paid, aborted or expired)`;
    case 'transfer_mode':
      return 'this offer is in transfer mode: it pays through the operator’s collecting account, which only the operator changes';
    default:
      return OFFER_PARAMETER_TEXT.en.refusal(r, show.bound);
  }
}

function offerRefusalFr(r: OfferRefusal, show: RefusalShow): string {
  switch (r.code) {
    case 'not_integer':
      return 'doit être un nombre entier';
    case 'out_of_range':
      return `doit être entre ${show.bound(r.min)} et ${show.bound(r.max)}`;
    case 'pot_deadline_shared_only':
      return 'seule une offre de cagnotte a un délai de cagnotte';
    case 'credit_mentions_credit_only':
      return 'seule une offre de crédit (paiement en plusieurs fois, paiement différé) affiche des mentions de crédit';
    case 'credit_lender_shape':
      return `doit tenir sur une ligne de 1 à ${r.max} caractères`;
    case 'min_above_max':
      return `le minimum (${show.money(r.min)}) ne doit pas dépasser le maximum (${show.money(r.max)})`;
    case 'unsellable':
      return `aucun achat de ${show.money(r.amountCents)} ne pourrait être vendu à ces conditions : ${SCHEDULE_REFUSAL_FR[r.schedule]}`;
    case 'sandbox_in_production':
      return 'une offre de production a besoin d’un compte PSP (le PSP de test intégré est refusé en production)';
    case 'psp_currency':
      return `${r.psp} n’accepte que ${r.takes.join(', ')} ; cette offre est en ${r.currency}`;
    case 'unpaid_purchases':
      return `modification impossible tant que ${r.count} achat(s) de cette offre attendent le paiement de leur initiateur : leur échéancier est calculé à ce moment (réessayez une fois qu’ils sont payés, annulés ou expirés)`;
    case 'transfer_mode':
      return 'cette offre est en mode virement : elle encaisse sur le compte d’encaissement de l’opérateur, que seul l’opérateur change';
    default:
      return OFFER_PARAMETER_TEXT.fr.refusal(r, show.bound);
  }
}

/** The words of the offers pages (`offers-page.ts`), with the words of a refused offer edit, in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const OFFERS_TEXT_EN = {
  offersTable: 'Offers and their terms',
  kindShared: 'Shared pot',
  kindInstallments: (n: number) => `${n} installments`,
  kindDeferred: (days: number) => `Deferred by ${days} days`,
  kindDownPayment: (percent: number, days: number) => `${percent} % deposit, balance within ${days} days`,
  feesOf: (percent: string, fixed: string) => `${percent} % + ${fixed}`,
  limits: 'Amounts',
  expiryHours: 'Unpaid purchase expires after',
  potDeadlineHours: 'Pot deadline after',
  hours: (n: number) => `${n} h`,
  pspAccountField: 'PSP account its next payments run on',
  pspAccountHint: 'Payments already made keep theirs for captures and refunds.',
  sandboxPsp: 'Built-in sandbox PSP',
  paymentMode: 'Payment mode',
  paymentModes: { back: 'Back: your PSP account collects', transfer: 'Transfer: the operator collects and pays you out by bank transfer' },
  transferPsp: 'The operator’s collecting account',
  commission: 'Operator’s commission',
  commissionOf: (percent: string, fixed: string) => `${percent} % + ${fixed} per validated purchase`,
  paymentModeHint: 'Set by the operator; it cannot be changed here.',
  saveOffer: 'Save the offer',
  offerSaved: 'Offer saved.',
  offerNotFound: 'There is no such offer in this account.',
  soldTerms: 'What it sells (cannot be changed)',
  currencyLabel: 'Currency',
  editOfferTerms: 'Fees, limits and delays',
  offerEditHint:
    'Amounts in the offer’s currency with up to 2 decimals (12.50); the fee rate in percent (1.50). Fees and amounts cannot change while a purchase of this offer awaits its leader’s payment. Other servers apply a change within 5 seconds.',
  feeRateField: 'Fee rate (%)',
  fixedFeeField: (currency: string) => `Fixed fee (${currency})`,
  minAmountField: (currency: string) => `Minimum amount (${currency})`,
  maxAmountField: (currency: string) => `Maximum amount (${currency})`,
  expiryHoursField: 'An unpaid purchase expires after (hours)',
  potDeadlineHoursField: 'Pledgers have, after the leader pays (hours)',
  badDecimal: 'must be a number with at most 2 decimals',
  badWholeNumber: 'must be a whole number',
  offerRefusal: offerRefusalEn,
  offerParameters: OFFER_PARAMETER_TEXT.en,
};

export const OFFERS_TEXT_FR: typeof OFFERS_TEXT_EN = {
  offersTable: 'Les offres et leurs conditions',
  kindShared: 'Cagnotte partagée',
  kindInstallments: (n) => `${n} échéances`,
  kindDeferred: (days) => `Différé de ${days} jours`,
  kindDownPayment: (percent, days) => `Acompte de ${percent} %, solde sous ${days} jours`,
  feesOf: (percent, fixed) => `${percent} % + ${fixed}`,
  limits: 'Montants',
  expiryHours: 'Un achat impayé expire après',
  potDeadlineHours: 'Échéance de la cagnotte après',
  hours: (n) => `${n} h`,
  pspAccountField: 'Compte PSP de ses prochains paiements',
  pspAccountHint: 'Les paiements déjà faits gardent le leur pour les encaissements et remboursements.',
  sandboxPsp: 'PSP sandbox intégré',
  paymentMode: 'Mode d’encaissement',
  paymentModes: { back: 'Back : votre compte PSP encaisse', transfer: 'Virement : l’opérateur encaisse et vous reverse par virement' },
  transferPsp: 'Le compte d’encaissement de l’opérateur',
  commission: 'Commission de l’opérateur',
  commissionOf: (percent: string, fixed: string) => `${percent} % + ${fixed} par achat validé`,
  paymentModeHint: 'Fixé par l’opérateur ; il ne se change pas ici.',
  saveOffer: 'Enregistrer l’offre',
  offerSaved: 'Offre enregistrée.',
  offerNotFound: 'Cette offre n’existe pas dans ce compte.',
  soldTerms: 'Ce qu’elle vend (non modifiable)',
  currencyLabel: 'Devise',
  editOfferTerms: 'Frais, montants et délais',
  offerEditHint:
    'Montants dans la devise de l’offre avec au plus 2 décimales (12,50) ; le taux de frais en pour cent (1,50). Frais et montants ne peuvent pas changer tant qu’un achat de cette offre attend le paiement de son initiateur. Les autres serveurs appliquent une modification sous 5 secondes.',
  feeRateField: 'Taux de frais (%)',
  fixedFeeField: (currency) => `Frais fixes (${currency})`,
  minAmountField: (currency) => `Montant minimum (${currency})`,
  maxAmountField: (currency) => `Montant maximum (${currency})`,
  expiryHoursField: 'Un achat impayé expire après (heures)',
  potDeadlineHoursField: 'Les participants ont, après le paiement de l’initiateur (heures)',
  badDecimal: 'doit être un nombre avec au plus 2 décimales',
  badWholeNumber: 'doit être un nombre entier',
  offerRefusal: offerRefusalFr,
  offerParameters: OFFER_PARAMETER_TEXT.fr,
};
