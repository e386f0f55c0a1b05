import type { EnFr } from '../i18n/lang.ts';

/** What the shop's script says as the payment goes (`{uid}`, `{id}`… filled in by src/sandbox/assets/demo-shop.js). */
interface DemoShopScriptTexts {
  opening: string;
  paid: string;
  error: string;
  retryable: string;
  cancelled: string;
  jwtChecked: string;
  valid: string;
  invalid: string;
}

/** The sandbox demo shop's words (docs/front-end.md): its page, its script's messages, the product it sells. */
export interface DemoShopTexts {
  title: string;
  /** Followed by the link to the API reference (`/docs`), named by `apiReference`. */
  note: string;
  apiReference: string;
  product: string;
  payIn3: string;
  split: string;
  choose: string;
  language: string;
  script: DemoShopScriptTexts;
}

export const DEMO_SHOP_TEXT: Readonly<Record<EnFr, DemoShopTexts>> = {
  en: {
    title: 'Demo Shop · Chipin sandbox',
    note: 'Chipin sandbox · a demo shop’s page using chipin.js: view its source to see the few lines it takes. Test card 4242 4242 4242 4242; 4000 0000 0000 0002 is declined. Its server creates the purchase with the Merchant API:',
    apiReference: 'API reference',
    product: 'Weekend in Lisbon',
    payIn3: 'Pay in 3x',
    split: 'Split with friends',
    choose: 'Choose how to pay.',
    language: 'Language',
    script: {
      opening: 'Opening the payment…',
      paid: 'Paid! {uid} — transaction {id} ({status})',
      error: 'Payment error: {code} — {message}',
      retryable: ' (the shopper can try again)',
      cancelled: 'Payment cancelled by the shopper.',
      jwtChecked: 'JWT checked by the shop’s server with the offer secret: {result}',
      valid: 'valid',
      invalid: 'INVALID',
    },
  },
  fr: {
    title: 'Boutique de démonstration · bac à sable Chipin',
    note: 'Bac à sable Chipin · la page d’une boutique de démonstration qui utilise chipin.js\u00a0: affichez son code source pour voir les quelques lignes qu’il y faut. Carte de test 4242 4242 4242 4242\u00a0; la 4000 0000 0000 0002 est refusée. Le serveur de la boutique crée l’achat avec l’API marchand\u00a0:',
    apiReference: 'référence de l’API',
    product: 'Week-end à Lisbonne',
    payIn3: 'Payer en 3 fois',
    split: 'Partager entre amis',
    choose: 'Choisissez comment payer.',
    language: 'Langue',
    script: {
      opening: 'Ouverture du paiement…',
      paid: 'Payé\u00a0! {uid} — transaction {id} ({status})',
      error: 'Erreur de paiement\u00a0: {code} — {message}',
      retryable: ' (l’acheteur peut réessayer)',
      cancelled: 'Paiement annulé par l’acheteur.',
      jwtChecked: 'JWT vérifié par le serveur de la boutique avec le secret de l’offre\u00a0: {result}',
      valid: 'valide',
      invalid: 'NON VALIDE',
    },
  },
};
