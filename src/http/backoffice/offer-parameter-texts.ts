import type { WebhookRule } from '../../delivery/endpoints.ts';
import type { EnFr } from '../../i18n/lang.ts';
import type { ParameterRefusal } from '../../use-cases/merchant-setup/offer-parameters.ts';

/**
 * The back office's texts of an offer's merchant parameters
 * (docs/back-office.md#merchant-parameters-of-the-original-interface), in English and French:
 * the Offers page's section, and why a value is refused. Apart from src/http/backoffice/texts.ts, which
 * is long enough.
 */

function urlRefusalEn(r: WebhookRule): string {
  switch (r.code) {
    case 'too_long':
      return `must be at most ${r.max} characters`;
    case 'not_https':
      return 'must start with https:// in production';
    case 'has_credentials':
      return 'must not carry a user name or password';
    case 'internal_address':
      return `must not point to an internal address (${r.host})`;
    case 'localhost':
      return 'must not point to localhost';
    default:
      return 'must be a full address starting with https:// (or http:// outside production)';
  }
}

function urlRefusalFr(r: WebhookRule): string {
  switch (r.code) {
    case 'too_long':
      return `${r.max} caractères au plus`;
    case 'not_https':
      return 'doit commencer par https:// en production';
    case 'has_credentials':
      return 'ne doit contenir ni nom d’utilisateur ni mot de passe';
    case 'internal_address':
      return `ne doit pas viser une adresse interne (${r.host})`;
    case 'localhost':
      return 'ne doit pas viser localhost';
    default:
      return 'saisissez une adresse complète commençant par https:// (ou http:// hors production)';
  }
}

function refusalEn(r: ParameterRefusal, bound: (n: number) => string): string {
  switch (r.code) {
    case 'url':
      return urlRefusalEn(r.rule);
    case 'not_country':
      return 'must be a two-letter country code (ISO 3166, like FR), or empty for the account’s country';
    case 'one_line':
      return `must be one line of at most ${r.max} characters`;
    case 'not_choice':
      return `must be one of ${r.choices.join(', ')}`;
    case 'not_boolean':
      return 'must be yes or no';
    case 'not_integer':
      return 'must be a whole number';
    case 'out_of_range':
      return `must be between ${bound(r.min)} and ${bound(r.max)}`;
    case 'shared_only':
      return 'only a pot offer uses it';
    case 'credit_only':
      return 'only a credit offer (installments, deferred payment, down payment) uses it';
    case 'down_payment_only':
      return 'only a down payment offer uses it';
    case 'required':
      return 'a down payment offer must have one';
  }
}

function refusalFr(r: ParameterRefusal, bound: (n: number) => string): string {
  switch (r.code) {
    case 'url':
      return urlRefusalFr(r.rule);
    case 'not_country':
      return 'doit être un code pays de deux lettres (ISO 3166, comme FR), ou vide pour le pays du compte';
    case 'one_line':
      return `doit tenir sur une ligne de ${r.max} caractères au plus`;
    case 'not_choice':
      return `doit être l’un de ${r.choices.join(', ')}`;
    case 'not_boolean':
      return 'doit être oui ou non';
    case 'not_integer':
      return 'doit être un nombre entier';
    case 'out_of_range':
      return `doit être entre ${bound(r.min)} et ${bound(r.max)}`;
    case 'shared_only':
      return 'seule une offre de cagnotte l’utilise';
    case 'credit_only':
      return 'seule une offre de crédit (paiement en plusieurs fois, paiement différé, acompte et solde) l’utilise';
    case 'down_payment_only':
      return 'seule une offre d’acompte et solde l’utilise';
    case 'required':
      return 'une offre d’acompte et solde en a besoin';
  }
}

const en = {
  title: 'Pages, messages and payment settings',
  hint: 'The settings the original interface kept per merchant uid. Leave a field empty for none (the country: the account’s).',
  countryCode: 'Country of national phone numbers (ISO 3166, like FR)',
  cssUrl: 'Stylesheet of the payment pages (https URL)',
  cssUrlHint: 'Linked on this offer’s payment pages: it can change how they look, never run script.',
  gtuUrl: 'Your terms of use (URL), linked by the pay button',
  gtuLabel: 'Words of that link',
  use3ds: '3-D Secure',
  use3dsNames: { auto: 'Automatic', always: 'Always', never: 'Never (unless the card requires it)' } as Record<'auto' | 'always' | 'never', string>,
  leaderCanPayAlone: 'The leader may pay alone, without friends',
  purchaseEndNotificationUrl: 'URL told when a pot ends',
  sendConfirmationEmail: 'E-mail the shopper a confirmation',
  sendOwedShareReminder: 'Remind the shopper before a share is debited',
  holdRenewalDays: 'Renew a card hold after at most (days)',
  fundingCap: (currency: string) => `Funding limit (${currency}): largest amount financed, empty for none`,
  depositPercent: 'Deposit (% of the amount, paid at checkout)',
  maxBalanceDelayDays: 'Balance paid at the latest after (days)',
  yes: 'Yes',
  no: 'No',
  refusal: refusalEn,
};

export type OfferParameterTexts = typeof en;

const fr: OfferParameterTexts = {
  title: 'Pages, messages et réglages de paiement',
  hint: 'Les réglages que l’interface d’origine gardait par merchant uid. Laissez un champ vide pour aucun (le pays : celui du compte).',
  countryCode: 'Pays des numéros de téléphone nationaux (ISO 3166, comme FR)',
  cssUrl: 'Feuille de style des pages de paiement (URL https)',
  cssUrlHint: 'Liée aux pages de paiement de cette offre : elle peut changer leur apparence, jamais exécuter de script.',
  gtuUrl: 'Vos conditions générales (URL), en lien près du bouton de paiement',
  gtuLabel: 'Texte de ce lien',
  use3ds: '3-D Secure',
  use3dsNames: { auto: 'Automatique', always: 'Toujours', never: 'Jamais (sauf si la carte l’exige)' },
  leaderCanPayAlone: 'L’initiateur peut payer seul, sans participants',
  purchaseEndNotificationUrl: 'URL prévenue à la fin d’une cagnotte',
  sendConfirmationEmail: 'Envoyer une confirmation par e-mail',
  sendOwedShareReminder: 'Prévenir avant le prélèvement d’une échéance',
  holdRenewalDays: 'Renouveler une autorisation de carte au plus tard après (jours)',
  fundingCap: (currency) => `Plafond de financement (${currency}) : montant financé le plus élevé, vide pour aucun`,
  depositPercent: 'Acompte (% du montant, payé à la commande)',
  maxBalanceDelayDays: 'Solde payé au plus tard après (jours)',
  yes: 'Oui',
  no: 'Non',
  refusal: refusalFr,
};

export const OFFER_PARAMETER_TEXT: Readonly<Record<EnFr, OfferParameterTexts>> = { en, fr };
