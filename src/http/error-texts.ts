import type { EnFr } from '../i18n/lang.ts';
import type { ErrorCode } from './errors.ts';

/** User-facing texts (`info` of Token API errors): what a shopper or merchant staff may read. */
const INFO: Record<ErrorCode, Record<EnFr, string>> = {
  psp_credentials_rejected: { en: 'The payment provider refused these credentials.', fr: 'Le prestataire de paiement a refusé ces identifiants.' },
  psp_unreachable: {
    en: 'The payment service could not be reached. Nothing was charged: please try again.',
    fr: "Le service de paiement n'a pas pu être joint. Rien n'a été débité : veuillez réessayer.",
  },
  psp_unavailable: { en: 'Payments are not available for this offer. Nothing was charged.', fr: "Le paiement n'est pas disponible pour cette offre. Rien n'a été débité." },
  psp_account_in_use: { en: 'This payment provider account is still in use.', fr: 'Ce compte de prestataire de paiement est encore utilisé.' },
  invalid_request: { en: 'The request is not valid.', fr: "La requête n'est pas valide." },
  invalid_client: { en: 'Invalid credentials.', fr: 'Identifiants invalides.' },
  forbidden: { en: 'This request was refused: reload the page and try again.', fr: 'Cette requête a été refusée : rechargez la page et réessayez.' },
  unsupported_grant_type: { en: 'This grant type is not supported.', fr: "Ce type d'autorisation n'est pas pris en charge." },
  invalid_token: { en: 'Invalid or expired credentials.', fr: 'Identifiants invalides ou expirés.' },
  purchase_already_aborted: { en: 'This purchase has already been cancelled.', fr: 'Cet achat a déjà été annulé.' },
  purchase_non_abortable: { en: 'This purchase can no longer be cancelled.', fr: 'Cet achat ne peut plus être annulé.' },
  idempotency_key_reused: { en: 'This request was already sent with different content.', fr: 'Cette requête a déjà été envoyée avec un contenu différent.' },
  idempotency_key_in_use: { en: 'This request is already being processed.', fr: 'Cette requête est déjà en cours de traitement.' },
  invalid_amount: { en: 'The amount is not valid.', fr: "Le montant n'est pas valide." },
  invalid_date: { en: 'The date is not valid.', fr: "La date n'est pas valide." },
  invalid_second_installment_date: {
    en: 'The date of the second installment is not possible for this payment option.',
    fr: "La date de la deuxième échéance n'est pas possible pour ce mode de paiement.",
  },
  invalid_deferred_date: {
    en: 'The date of the deferred payment is not possible for this payment option.',
    fr: "La date du paiement différé n'est pas possible pour ce mode de paiement.",
  },
  invalid_balance_payment_date: {
    en: 'The date of the balance payment is not possible for this payment option.',
    fr: "La date de paiement du solde n'est pas possible pour ce mode de paiement.",
  },
  amount_below_minimum: { en: 'The amount is too low for this payment option.', fr: 'Le montant est trop faible pour ce mode de paiement.' },
  amount_above_maximum: { en: 'The amount is too high for this payment option.', fr: 'Le montant est trop élevé pour ce mode de paiement.' },
  amount_above_funding_cap: { en: 'The amount to finance is too high for this payment option.', fr: 'Le montant à financer est trop élevé pour ce mode de paiement.' },
  usury_ceiling_exceeded: {
    en: 'This payment option is not available for this amount: its cost would exceed the legal limit.',
    fr: "Ce mode de paiement n'est pas disponible pour ce montant : son coût dépasserait le taux d'usure.",
  },
  schedule_not_available: { en: 'This payment option has no payment schedule.', fr: "Ce mode de paiement n'a pas d'échéancier." },
  card_declined: { en: 'The card was declined.', fr: 'La carte a été refusée.' },
  insufficient_funds: { en: 'The card has insufficient funds.', fr: 'Provision insuffisante.' },
  expired_card: { en: 'The card has expired.', fr: 'La carte a expiré.' },
  incorrect_cvc: { en: 'The CVC is incorrect.', fr: 'Le cryptogramme est incorrect.' },
  risk_refused: {
    en: 'This way of paying is not available for this purchase with this card. Nothing was charged.',
    fr: "Ce mode de paiement n'est pas disponible pour cet achat avec cette carte. Rien n'a été débité.",
  },
  invalid_card: { en: 'The card number is not valid.', fr: "Le numéro de carte n'est pas valide." },
  authentication_failed: { en: 'The card authentication failed.', fr: "L'authentification de la carte a échoué." },
  authorization_expired: { en: 'The authorisation expired.', fr: "L'autorisation a expiré." },
  amount_too_large: { en: 'The amount is too large.', fr: 'Le montant est trop élevé.' },
  processing_error: { en: 'The payment could not be completed.', fr: "Le paiement n'a pas pu aboutir." },
  purchase_not_payable: { en: 'This purchase can no longer be paid.', fr: 'Cet achat ne peut plus être payé.' },
  pledge_closed: { en: 'This contribution is closed.', fr: 'Cette participation est close.' },
  payment_in_progress: { en: 'A payment is already in progress.', fr: 'Un paiement est déjà en cours.' },
  operation_in_progress: {
    en: 'Another operation on this purchase is in progress: please try again in a few seconds.',
    fr: 'Une autre opération sur cet achat est en cours : veuillez réessayer dans quelques secondes.',
  },
  invalid_signature: { en: 'The signature is invalid.', fr: 'La signature est invalide.' },
  missing_identifier: { en: 'The purchase is not identified.', fr: "L'achat n'est pas identifié." },
  invalid_purchase_state: { en: 'This purchase cannot be captured now.', fr: 'Cet achat ne peut pas être encaissé maintenant.' },
  dispute_not_open: { en: 'This dispute is no longer open.', fr: "Ce litige n'est plus ouvert." },
  charge_disputed: {
    en: 'A chargeback is open on this payment: it cannot be refunded until the bank decides.',
    fr: 'Une rétrofacturation est ouverte sur ce paiement : il ne peut pas être remboursé avant la décision de la banque.',
  },
  not_ready: {
    en: 'The transaction this notice names is not recorded yet: send it again later.',
    fr: "La transaction que cet avis nomme n'est pas encore enregistrée : renvoyez-le plus tard.",
  },
  not_transfer_mode: {
    en: 'This purchase is not paid in transfer mode.',
    fr: "Cet achat n'est pas payé en mode virement.",
  },
  purchase_not_releasable: {
    en: 'Nothing can be released on this purchase any more: refund it instead.',
    fr: 'Plus rien ne peut être libéré sur cet achat : remboursez-le plutôt.',
  },
  not_found: { en: 'Not found.', fr: 'Introuvable.' },
  invalid_input: { en: 'Some information is invalid.', fr: 'Certaines informations sont invalides.' },
  unsupported_media_type: { en: 'This content type is not supported.', fr: "Ce type de contenu n'est pas pris en charge." },
  payload_too_large: { en: 'The request is too large.', fr: 'La requête est trop volumineuse.' },
  too_many_requests: { en: 'Too many attempts, please try again later.', fr: 'Trop de tentatives, veuillez réessayer plus tard.' },
  service_unavailable: {
    en: 'The service is briefly unavailable, please try again in a few seconds.',
    fr: 'Le service est momentanément indisponible, veuillez réessayer dans quelques secondes.',
  },
  internal_error: { en: 'An unexpected error occurred.', fr: 'Une erreur inattendue est survenue.' },
};

export function infoText(code: ErrorCode, lang: EnFr): string {
  return INFO[code][lang];
}
