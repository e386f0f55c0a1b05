import type { ContractNeed, NotYetWhy } from '../../../psp/catalogue.ts';

/** What a PSP's public API lacks for the connector contract (`contract_gap`, src/psp/catalogue.ts). */
const LACKS_EN: Record<ContractNeed, string> = {
  transaction_read: 'no read of a payment by its id or by our reference',
  idempotency: 'no idempotency key, so a call whose answer was lost can be neither found again nor safely sent again',
};
const LACKS_FR: Record<ContractNeed, string> = {
  transaction_read: 'aucune lecture d’un paiement par son identifiant ni par notre référence',
  idempotency: 'aucune clé d’idempotence\u00a0: un appel dont la réponse s’est perdue ne peut être ni retrouvé ni renvoyé sans risque',
};

/** The words of the PSP accounts pages (`psp-accounts-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const PSP_ACCOUNTS_TEXT_EN = {
  pspAccountsHint: 'Your own accounts at a payment service provider (back mode): an offer bound to one takes its payments there. Secrets are never shown again after saving.',
  pspAccountsTable: 'Your PSP accounts',
  noPspAccount: 'No PSP account yet: every offer pays through the built-in sandbox PSP.',
  label: 'Label',
  environment: 'Environment',
  credentials: 'Credentials',
  verifiedAt: 'Checked with the PSP',
  notVerified: 'Not checked',
  actions: 'Actions',
  delete: 'Delete',
  deletePspAccount: (label: string) => `Delete ${label}`,
  confirmDeletePspAccount: (label: string, psp: string) => `Delete the PSP account “${label}” (${psp})? Its credentials are erased.`,
  addPspAccount: 'Add a PSP account',
  reaches: (names: string) => `Reaches ${names}.`,
  notReachedYet: 'Not reached yet',
  notReachedWhy: (why: NotYetWhy) => {
    switch (why.code) {
      case 'no_connector':
        return 'no connector yet, direct or through Hyperswitch';
      case 'no_public_api':
        return 'no public reference of its API found, and no Hyperswitch connector';
      case 'reference_incomplete':
        return 'its public API reference does not show all that a connector needs; no connector yet, direct or through Hyperswitch';
      case 'contract_gap':
        return `its public API cannot meet the connector contract: ${why.lacks.map((need) => LACKS_EN[need]).join('; ')}`;
      case 'acquired':
        return why.closed
          ? `acquired by ${why.by} (${why.on}), which closed it (${why.closed})`
          : `acquired by ${why.by} (${why.on}); no connector yet, direct or through Hyperswitch`;
      case 'hyperswitch_unverified':
        return `no direct connector; Hyperswitch’s ${why.hyperswitchConnector} connector is not verified for manual capture and merchant-initiated charges`;
      case 'other_api':
        return `its API is not the one of the ${why.connector} connector; Hyperswitch’s ${why.hyperswitchConnector} connector is not verified for manual capture and merchant-initiated charges`;
      case 'not_in_build':
        return `its connector (${why.connector}) is not in this build`;
    }
  },
  addPspAccountOf: (psp: string) => `Add a ${psp} account`,
  optional: 'optional',
  verifyWithPsp: 'Check the credentials with the PSP before saving',
  savePspAccount: 'Save the PSP account',
  pspAccountCreated: 'PSP account saved.',
  pspAccountDeleted: 'PSP account deleted.',
  pspAccountInUse: (offers: number, payments: number) =>
    `This PSP account is in use (${offers} offer(s), ${payments} payment(s)): bind its offers to another account first; an account that took payments is kept.`,
  pspRejected: (message: string) => `The PSP refused these credentials: ${message}`,
  pspUnreachable: 'The PSP could not be reached to check the credentials; nothing was saved. Try again, or untick the check.',
  unknownPsp: 'This build has no such PSP connector.',
  connector: 'Connector',
  pspAccountFacts: 'About this account',
  pspAccountId: 'Reference',
  offersUsing: 'Offers paying through it',
  noOfferUsing: 'No offer pays through it.',
  editPspAccount: 'Change the settings',
  keepBlank: 'Leave a credential blank to keep the saved one: secrets are never shown again.',
  checkAgain: 'Check again',
  checkAgainHint: 'Makes the one harmless authenticated call to the PSP with the saved settings.',
  pspAccountVerified: 'The PSP accepted the saved settings.',
  credentialLabels: {
    secret_key: 'Secret key',
    server_key: 'Server key',
    client_key: 'Client key',
    webhook_secret: 'Webhook signing secret',
    access_token: 'Access token',
    merchant_account: 'Merchant account code',
    api_key: 'API key',
    hmac_key: 'Webhook HMAC key',
    report_api_key: 'Report user API key',
    live_url_prefix: 'Live URL prefix',
    username: 'API username',
    password: 'API password',
    secret_passphrase: 'Secret passphrase',
    shop_id: 'Shop ID',
    pspid: 'PSPID (account name)',
    user_id: 'API user ID',
    sha_in: 'SHA-IN passphrase',
    sha_out: 'SHA-OUT passphrase',
    hash_algorithm: 'Hash algorithm',
    login: 'API login',
    point_of_sale_id: 'Point of sale ID',
    site: 'Site number',
    rank: 'Rank number',
    identifier: 'Identifier',
    cle: 'Paybox Direct key (CLE)',
    brand: 'Bank offer (brand)',
    merchant_id: 'Merchant ID (merchantId)',
    processing_channel_id: 'Processing channel ID',
    profile_id: 'Business profile ID',
    payment_response_hash_key: 'Payment response hash key',
    key_version: 'Secret key version',
    tpe: 'TPE number (virtual terminal)',
    societe: 'Company code (code société)',
    key: 'Security key (for the MAC)',
    access_key: 'Web services access key',
    public_key: 'Public key',
    private_key: 'Private key',
    contract_number: 'Card contract number',
    payment_key: 'Payment key',
    client_id: 'Client ID (ClientID)',
    client_secret: 'Client secret (ClientSecret)',
    terminal_id: 'Terminal ID (TerminalID)',
  } as Record<string, string>,
  endpointUrl: 'API address, if not the PSP’s own',
  endpointUrlHint: 'Leave empty to use the PSP’s published address.',
  expectedFormat: (format: string) => `Format: ${format}.`,
  badFormat: (format: string) => `does not have the expected format: ${format}.`,
  fieldProblem: (field: string, message: string) => `${field}: ${message}`,
  /** A connector's credential format (its `format`, in English), by `<psp>.<field>`: only where the page's language differs. */
  credentialFormats: {} as Record<string, string>,
  pspRequirementsHeading: (psp: string) => `What your ${psp} account needs first`,
  pspRequirements: {
    stripe: [
      'Raw card data APIs enabled (Stripe Dashboard → Settings → Integration, after Stripe’s PCI DSS review, SAQ D): Chipin sends card numbers to Stripe’s API, which Stripe refuses otherwise.',
      'Cards enabled as a payment method, with manual capture.',
      'A webhook endpoint at the notification URL shown once this account is saved, with the payment_intent.* and charge.refunded events: its signing secret can be added then.',
    ],
    adyen: [
      'Raw card data processing approved by Adyen (API PCI Payments role, “Process raw card data”, PCI DSS SAQ D): Chipin sends card numbers to Adyen’s API.',
      'Tokenisation / recurring enabled on the merchant account.',
      'A Standard webhook (JSON) at the notification URL shown once this account is saved, with an HMAC key: the key can be added then.',
      'For reconciliation: a report service user with its API key, and the Payment accounting report generated daily.',
    ],
    hipay: [
      'Private API credentials with the order, maintenance, transaction and tokenisation permissions (and Chipin’s addresses allowed if API calls are restricted by IP).',
      'Recurring / card-on-file payments enabled, and capture mode manual for the card products.',
      'The notification URL shown once this account is saved, set under Integration → Notifications (HTTP POST).',
    ],
    lyra: [
      'PCI-DSS mode for the REST API (Lyra enables it on request, for PCI DSS certified merchants): Chipin sends card data to Lyra’s API.',
      'Payment by token (alias) and manual validation enabled on the shop.',
    ],
    ogone: [
      'The DirectLink and Alias Manager options on the contract, and an API user.',
      'Chipin’s server addresses under Data and origin verification, and the notification URL shown once this account is saved as the server-to-server feedback URL (POST).',
    ],
    fondy: [
      'Host-to-host card payments (the “direct” integration, for PCI DSS merchants: Chipin sends card numbers to Fondy’s API), card tokens (rectoken) and pre-authorisation (preauth) enabled on the merchant.',
      'Recurring payments by token (/api/recurring) allowed for the merchant. Fondy sends its callbacks to the notification URL Chipin gives with each payment, signed with the payment key.',
    ],
    centralpay: [
      'API access (a login and an API key) and card acceptance with 3-D Secure on the account, and a point of sale for the payments.',
      'Card data sent server to server (the “direct transaction” mode, for PCI DSS level 1 merchants): Chipin sends card numbers to CentralPay’s API.',
      'No webhook towards Chipin: CentralPay publishes no signature scheme to check it with, so Chipin reads each payment’s outcome from CentralPay.',
    ],
    paybox: [
      'The Paybox Direct Plus option on the contract (subscribers), and 3-D Secure (RemoteMPI) for the site.',
      'Chipin sends card numbers to Paybox Direct: the merchant’s PCI DSS compliance for it (SAQ D).',
      'Paybox’s public key (pubkey.pem, in Paybox’s integrator documentation): Chipin checks with it that a 3-D Secure result comes from Paybox.',
    ],
    monetico: [
      'The server-to-server payment option (direct payment) on the TPE, for a PCI DSS merchant: Chipin sends card numbers to Monetico.',
      'The TPE set to deferred capture, and the recurring payment option (card alias) for later installments.',
      'The notification URL shown once this account is saved, as the return interface (CGI2) URL of the TPE.',
    ],
    payline: [
      'The DirectPayment web services and the wallet option on the contract, and an access key.',
      'A card payment contract on the point of sale, with 3-D Secure. Payline’s notifications are not signed: Chipin reads each payment’s outcome from Payline.',
    ],
    dalenys: [
      'The server-to-server API (direct link) on the account, with aliases (one-click and subscription) for later charges.',
      'The notification URL shown once this account is saved, as the transaction notification URL of the account.',
    ],
    midtrans: [
      'Card payments through the Core API on the account, with 3-D Secure, and one-click (saved card tokens) enabled by Midtrans for later charges.',
      'Offers in Indonesian rupiah (IDR), in whole rupiah: Midtrans takes no other currency and no decimals.',
      'The notification URL shown once this account is saved, as the Payment Notification URL (Settings → Configuration); notifications are signed with the server key.',
    ],
    sips: [
      'Sips Office (JSON) on the contract with your bank (Mercanet, Sogenactif, Sherlock’s), with the wallet and duplication options.',
      'The secret key downloaded from the Sips merchant extranet, and its version. Sips Office sends no notifications: Chipin reads each payment’s outcome from Sips.',
    ],
    checkout: [
      'Full card details accepted through the API (Checkout.com enables it for PCI DSS SAQ D merchants): Chipin sends card numbers to Checkout.com’s Payments API.',
      'A secret key with the gateway scopes (payments, captures, voids, refunds) and the processing channel the payments are booked on, with 3-D Secure.',
      'A webhook towards the notification URL shown once this account is saved, with the payment events: its secret key can be added then.',
    ],
    mercadopago: [
      'An application in Mercado Pago’s Your integrations (Checkout API), with its test or production access token. Chipin sends card numbers to Mercado Pago’s API (card tokens): a PCI DSS SAQ D merchant only.',
      'A Webhooks notification URL (the one shown once this account is saved) with the Payments event: the secret signature Mercado Pago then shows can be added here.',
    ],
    braintree: [
      'API keys (merchant ID, public and private key) of the Braintree gateway, and a merchant account in the offers’ currency as the default one.',
      'Card payments sent by the server (PCI DSS SAQ D) and the Vault. Cards that need 3-D Secure are declined: Braintree runs the challenge in its client SDK.',
      'A webhook pointing at the notification URL shown once this account is saved.',
    ],
    hyperswitch: [
      'A Hyperswitch merchant account (hosted, or your own Hyperswitch: its address goes in “API address”, and the operator must allow its host) with an API key, and a business profile whose connector is the processor that takes the payments (Bluesnap, Cybersource, dLocal, Nuvei, PayU, Worldpay, ACI…), with 3-D Secure and saved cards (mandates) on.',
      'Chipin sends card numbers to Hyperswitch’s payments API, which keeps them in its vault: a PCI DSS SAQ D merchant only, unless your Hyperswitch’s own compliance covers it.',
      'The profile’s webhook URL set to the notification URL shown once this account is saved, and its payment response hash key, which signs each webhook, added here.',
    ],
    halyk: [
      'An ePay terminal with API payments (card cryptograms sent server to server, for PCI DSS certified merchants) and saved cards (CardID), its ClientID and ClientSecret.',
      'The terminal set to the two-step scheme (hold, then charge) in the ePay cabinet’s settings: Chipin holds every payment and charges it itself.',
      'No notification towards Chipin: ePay does not sign its postLink, so Chipin reads each payment’s outcome from ePay.',
    ],
  } as Record<string, string[]>,
  webhookUrlOfPsp: (psp: string) => `Notification URL to set at ${psp}`,
  webhookUrlOfPspHint: (psp: string) => `${psp} sends its payment notifications here. Set it in ${psp}’s back office, then add below what ${psp} gives for it.`,
  afterSaveHint: 'Once this account is saved, its page shows the notification URL to set at the PSP: secrets the PSP makes for that URL can be added then.',
  copy: 'Copy',
  copyNotificationUrl: 'Copy the notification URL',
  copied: 'Copied.',
  missingWebhookSecret: (field: string, psp: string) =>
    `${field} is not set yet: ${psp}’s notifications are refused until it is. Set the notification URL above at ${psp}, then add the ${field} it gives you in “Change the settings”.`,
  needsAttention: 'Needs attention',
  credentialUnusable: (field: string) =>
    `${field} is saved but cannot be used. Payments that need it fail, and the notifications that need it are answered “send again later”, until you replace it in “Change the settings”.`,
};

export const PSP_ACCOUNTS_TEXT_FR: typeof PSP_ACCOUNTS_TEXT_EN = {
  pspAccountsHint:
    'Vos propres comptes chez un prestataire de paiement (back mode)\u00a0: une offre liée à l’un d’eux y prend ses paiements. Les secrets ne sont plus jamais affichés après l’enregistrement.',
  pspAccountsTable: 'Vos comptes PSP',
  noPspAccount: 'Aucun compte PSP\u00a0: toutes les offres passent par le PSP sandbox intégré.',
  label: 'Libellé',
  environment: 'Environnement',
  credentials: 'Identifiants',
  verifiedAt: 'Vérifié auprès du PSP',
  notVerified: 'Non vérifié',
  actions: 'Actions',
  delete: 'Supprimer',
  deletePspAccount: (label) => `Supprimer ${label}`,
  confirmDeletePspAccount: (label, psp) => `Supprimer le compte PSP «\u00a0${label}\u00a0» (${psp})\u00a0? Ses identifiants sont effacés.`,
  addPspAccount: 'Ajouter un compte PSP',
  reaches: (names) => `Pour ${names}.`,
  notReachedYet: 'Pas encore accessibles',
  notReachedWhy: (why) => {
    switch (why.code) {
      case 'no_connector':
        return 'pas encore de connecteur, ni direct ni par Hyperswitch';
      case 'no_public_api':
        return 'aucune référence publique de son API trouvée, et pas de connecteur Hyperswitch';
      case 'reference_incomplete':
        return 'sa référence d’API publique ne montre pas tout ce qu’un connecteur demande\u00a0; pas encore de connecteur, ni direct ni par Hyperswitch';
      case 'contract_gap':
        return `son API publique ne permet pas de tenir le contrat des connecteurs\u00a0: ${why.lacks.map((need) => LACKS_FR[need]).join('\u00a0; ')}`;
      case 'acquired':
        return why.closed
          ? `racheté par ${why.by} (${why.on}), qui l’a fermé (${why.closed})`
          : `racheté par ${why.by} (${why.on})\u00a0; pas encore de connecteur, ni direct ni par Hyperswitch`;
      case 'hyperswitch_unverified':
        return `pas de connecteur direct\u00a0; le connecteur ${why.hyperswitchConnector} d’Hyperswitch n’est pas vérifié pour la capture manuelle et les débits à l’initiative du marchand`;
      case 'other_api':
        return `son API n’est pas celle du connecteur ${why.connector}\u00a0; le connecteur ${why.hyperswitchConnector} d’Hyperswitch n’est pas vérifié pour la capture manuelle et les débits à l’initiative du marchand`;
      case 'not_in_build':
        return `son connecteur (${why.connector}) n’est pas dans cette version`;
    }
  },
  addPspAccountOf: (psp) => `Ajouter un compte ${psp}`,
  optional: 'facultatif',
  verifyWithPsp: 'Vérifier les identifiants auprès du PSP avant d’enregistrer',
  savePspAccount: 'Enregistrer le compte PSP',
  pspAccountCreated: 'Compte PSP enregistré.',
  pspAccountDeleted: 'Compte PSP supprimé.',
  pspAccountInUse: (offers, payments) =>
    `Ce compte PSP est utilisé (${offers} offre(s), ${payments} paiement(s))\u00a0: liez d’abord ses offres à un autre compte\u00a0; un compte qui a pris des paiements est conservé.`,
  pspRejected: (message) => `Le PSP a refusé ces identifiants\u00a0: ${message}`,
  pspUnreachable: 'Le PSP n’a pas pu être joint pour vérifier les identifiants\u00a0; rien n’a été enregistré. Réessayez, ou décochez la vérification.',
  unknownPsp: 'Cette version n’a pas ce connecteur PSP.',
  connector: 'Connecteur',
  pspAccountFacts: 'À propos de ce compte',
  pspAccountId: 'Référence',
  offersUsing: 'Offres qui passent par lui',
  noOfferUsing: 'Aucune offre ne passe par lui.',
  editPspAccount: 'Modifier les réglages',
  keepBlank: 'Laissez un identifiant vide pour garder celui enregistré : les secrets ne sont plus jamais affichés.',
  checkAgain: 'Vérifier à nouveau',
  checkAgainHint: 'Fait l’unique appel authentifié sans effet au PSP avec les réglages enregistrés.',
  pspAccountVerified: 'Le PSP a accepté les réglages enregistrés.',
  credentialLabels: {
    secret_key: 'Clé secrète',
    server_key: 'Clé serveur (server key)',
    client_key: 'Clé client (client key)',
    webhook_secret: 'Secret de signature du webhook',
    access_token: 'Jeton d’accès (access token)',
    merchant_account: 'Code du compte marchand',
    api_key: 'Clé d’API',
    hmac_key: 'Clé HMAC du webhook',
    report_api_key: 'Clé d’API de l’utilisateur des rapports',
    live_url_prefix: 'Préfixe d’URL de production',
    username: 'Identifiant d’API',
    password: 'Mot de passe d’API',
    secret_passphrase: 'Phrase secrète',
    shop_id: 'Identifiant de la boutique',
    pspid: 'PSPID (nom du compte)',
    user_id: 'Identifiant de l’utilisateur d’API',
    sha_in: 'Phrase SHA-IN',
    sha_out: 'Phrase SHA-OUT',
    hash_algorithm: 'Algorithme de hachage',
    login: 'Identifiant (login) d’API',
    point_of_sale_id: 'Identifiant du point de vente',
    site: 'Numéro de site',
    rank: 'Numéro de rang',
    identifier: 'Identifiant',
    cle: 'Clé Paybox Direct (CLE)',
    brand: 'Offre de la banque (marque)',
    public_key: 'Clé publique',
    private_key: 'Clé privée',
    merchant_id: 'Identifiant marchand (merchantId)',
    processing_channel_id: 'Identifiant du canal de traitement',
    profile_id: 'Identifiant du profil (business profile)',
    payment_response_hash_key: 'Clé de hachage des réponses de paiement (payment response hash key)',
    key_version: 'Version de la clé secrète',
    tpe: 'Numéro de TPE',
    societe: 'Code société',
    key: 'Clé de sécurité (pour le MAC)',
    access_key: 'Clé d’accès aux web services',
    contract_number: 'Numéro de contrat carte',
    payment_key: 'Clé de paiement (payment key)',
    client_id: 'Identifiant client (ClientID)',
    client_secret: 'Secret client (ClientSecret)',
    terminal_id: 'Identifiant du terminal (TerminalID)',
  },
  endpointUrl: 'Adresse de l’API, si ce n’est pas celle du PSP',
  endpointUrlHint: 'Laissez vide pour utiliser l’adresse publiée par le PSP.',
  expectedFormat: (format) => `Format\u00a0: ${format}.`,
  badFormat: (format) => `n’a pas le format attendu\u00a0: ${format}.`,
  fieldProblem: (field, message) => `${field}\u00a0: ${message}`,
  credentialFormats: {
    'adyen.merchant_account': 'jusqu’à 80 lettres, chiffres, _, . ou -',
    'adyen.api_key': 'au moins 20 caractères, sans espace',
    'adyen.hmac_key': '32 à 256 caractères hexadécimaux (0-9, A-F)',
    'adyen.report_api_key': 'au moins 20 caractères, sans espace',
    'adyen.live_url_prefix': 'lettres et chiffres en groupes reliés par des -, par exemple 1797a841fbb37ca7-AdyenDemo',
    'hipay.username': '4 à 128 lettres, chiffres, ., _ ou -',
    'hipay.password': '4 à 256 caractères, sans espace',
    'hipay.secret_passphrase': '8 à 256 caractères',
    'lyra.shop_id': '8 chiffres',
    'lyra.password': 'testpassword_… ou prodpassword_… suivi de 20 à 100 lettres et chiffres',
    'lyra.hmac_key': '16 à 128 lettres et chiffres',
    'stripe.secret_key': 'sk_test_… ou sk_live_… suivi de lettres et chiffres',
    'stripe.webhook_secret': 'whsec_… suivi de 16 à 128 lettres, chiffres, +, / ou =',
    'centralpay.login': '3 à 64 lettres, chiffres, ., _, @ ou -',
    'centralpay.api_key': '8 à 128 lettres et chiffres',
    'centralpay.point_of_sale_id': 'un UUID en minuscules (8-4-4-4-12 chiffres hexadécimaux)',
    'fondy.merchant_id': '1 à 12 chiffres',
    'fondy.payment_key': '4 à 64 lettres et chiffres',
    'midtrans.server_key': 'SB-Mid-server-… (sandbox) ou Mid-server-… (production)',
    'midtrans.client_key': 'SB-Mid-client-… (sandbox) ou Mid-client-… (production)',
    'paybox.site': '7 chiffres',
    'paybox.rank': '2 ou 3 chiffres',
    'paybox.identifier': '1 à 9 chiffres',
    'paybox.cle': '8 à 10 caractères, sans espace',
    'paybox.public_key': 'le PEM de pubkey.pem sur une ligne (ses lignes BEGIN et END peuvent rester), ou sa seule partie base64',
    'sips.merchant_id': '15 chiffres',
    'monetico.tpe': '7 lettres ou chiffres',
    'monetico.societe': '1 à 50 lettres, chiffres, points, tirets ou soulignés',
    'monetico.key': '40 caractères hexadécimaux',
    'payline.merchant_id': 'des chiffres seulement',
    'payline.access_key': 'des lettres et des chiffres, tels que Payline les a générés (la casse compte)',
    'payline.contract_number': 'des lettres et des chiffres',
    'dalenys.identifier': 'lettres, chiffres, espaces, points, tirets ou soulignés (64 au plus), tel qu’affiché dans le back office Dalenys',
    'dalenys.password': 'le mot de passe, sans espace au début ni à la fin',
    'braintree.merchant_id': 'lettres et chiffres',
    'braintree.public_key': 'lettres et chiffres',
    'braintree.private_key': 'lettres et chiffres',
    'sips.secret_key': 'des caractères imprimables, sans espace',
    'sips.key_version': 'un nombre',
    'checkout.secret_key': 'sk_sbox_… (sandbox) ou sk_… (production) suivi de 27 caractères',
    'checkout.processing_channel_id': 'pc_ suivi de 26 lettres minuscules et chiffres',
    'hyperswitch.api_key': 'snd_… (sandbox) ou prd_… (production), lettres, chiffres et soulignés',
    'hyperswitch.profile_id': 'pro_ suivi de lettres et chiffres',
    'hyperswitch.payment_response_hash_key': '16 à 256 caractères imprimables',
    'halyk.client_id': '2 à 64 lettres, chiffres, ., _, @ ou -',
    'halyk.client_secret': '8 à 128 caractères visibles, sans espace',
    'halyk.terminal_id': 'un UUID (8-4-4-4-12 chiffres hexadécimaux)',
    'halyk.public_key': 'une clé publique RSA en base64 (DER), sur une ligne',
    'checkout.webhook_secret': '16 à 128 caractères imprimables',
    'mercadopago.access_token': 'TEST-… ou APP_USR-… suivi de chiffres, lettres et tirets',
    'mercadopago.webhook_secret': '16 à 128 lettres ou chiffres',
  },
  pspRequirementsHeading: (psp) => `Ce que votre compte ${psp} doit avoir d’abord`,
  pspRequirements: {
    stripe: [
      'L’accès aux API de données de carte brutes («\u00a0raw card data\u00a0», Dashboard Stripe → Paramètres → Intégration, après la revue PCI DSS de Stripe, SAQ D)\u00a0: Chipin envoie les numéros de carte à l’API de Stripe, qui les refuse sinon.',
      'Les cartes activées comme moyen de paiement, avec la capture manuelle.',
      'Un webhook vers l’URL de notification affichée une fois ce compte enregistré, avec les événements payment_intent.* et charge.refunded\u00a0: son secret de signature peut être ajouté ensuite.',
    ],
    adyen: [
      'Le traitement des données de carte brutes approuvé par Adyen (rôle API PCI Payments, «\u00a0Process raw card data\u00a0», PCI DSS SAQ D)\u00a0: Chipin envoie les numéros de carte à l’API d’Adyen.',
      'La tokenisation / les paiements récurrents activés sur le compte marchand.',
      'Un webhook Standard (JSON) vers l’URL de notification affichée une fois ce compte enregistré, avec une clé HMAC\u00a0: la clé peut être ajoutée ensuite.',
      'Pour le rapprochement\u00a0: un utilisateur de service des rapports avec sa clé d’API, et le rapport Payment accounting généré chaque jour.',
    ],
    hipay: [
      'Des identifiants d’API privés avec les droits commandes, maintenance, transactions et tokenisation (et les adresses de Chipin autorisées si les appels d’API sont filtrés par IP).',
      'Les paiements récurrents / carte enregistrée activés, et la capture manuelle pour les produits carte.',
      'L’URL de notification affichée une fois ce compte enregistré, à saisir sous Intégration → Notifications (HTTP POST).',
    ],
    lyra: [
      'Le mode PCI-DSS de l’API REST (Lyra l’active sur demande, pour les marchands certifiés PCI DSS)\u00a0: Chipin envoie les données de carte à l’API de Lyra.',
      'Le paiement par identifiant (alias) et la validation manuelle activés sur la boutique.',
    ],
    ogone: [
      'Les options DirectLink et Alias Manager au contrat, et un utilisateur d’API.',
      'Les adresses des serveurs de Chipin sous Vérification des données et de l’origine, et l’URL de notification affichée une fois ce compte enregistré comme URL de retour serveur à serveur (POST).',
    ],
    fondy: [
      'Le paiement carte de serveur à serveur (intégration «\u00a0directe\u00a0», pour les marchands PCI DSS\u00a0: Chipin envoie les numéros de carte à l’API de Fondy), les jetons de carte (rectoken) et la pré-autorisation (preauth) activés pour le marchand.',
      'Les paiements récurrents par jeton (/api/recurring) autorisés pour le marchand. Fondy envoie ses notifications à l’URL que Chipin donne avec chaque paiement, signées avec la clé de paiement.',
    ],
    centralpay: [
      'L’accès à l’API (un login et une clé d’API) et l’acceptation carte avec 3-D Secure sur le compte, et un point de vente pour les paiements.',
      'L’envoi des données de carte de serveur à serveur (mode «\u00a0transaction directe\u00a0», pour les marchands PCI DSS niveau 1)\u00a0: Chipin envoie les numéros de carte à l’API de CentralPay.',
      'Aucun webhook vers Chipin\u00a0: CentralPay ne publie pas de schéma de signature pour le vérifier, Chipin lit donc l’issue de chaque paiement chez CentralPay.',
    ],
    paybox: [
      'L’option Paybox Direct Plus au contrat (abonnés), et le 3-D Secure (RemoteMPI) pour le site.',
      'Chipin envoie les numéros de carte à Paybox Direct\u00a0: la conformité PCI DSS du marchand pour cela (SAQ D).',
      'La clé publique de Paybox (pubkey.pem, dans la documentation intégrateur de Paybox)\u00a0: Chipin vérifie avec elle qu’un résultat 3-D Secure vient bien de Paybox.',
    ],
    monetico: [
      'L’option de paiement serveur à serveur (paiement direct) sur le TPE, pour un marchand PCI DSS\u00a0: Chipin envoie les numéros de carte à Monetico.',
      'Le TPE en capture différée, et l’option de paiement récurrent (alias de carte) pour les échéances suivantes.',
      'L’URL de notification affichée une fois ce compte enregistré, comme URL de l’interface retour (CGI2) du TPE.',
    ],
    payline: [
      'Les web services DirectPayment et l’option portefeuille (wallet) au contrat, et une clé d’accès.',
      'Un contrat de paiement carte sur le point de vente, avec 3-D Secure. Les notifications de Payline ne sont pas signées\u00a0: Chipin lit l’issue de chaque paiement chez Payline.',
    ],
    dalenys: [
      'L’API serveur à serveur (lien direct) sur le compte, avec les alias (one-click et abonnement) pour les débits suivants.',
      'L’URL de notification affichée une fois ce compte enregistré, comme URL de notification des transactions du compte.',
    ],
    midtrans: [
      'Les paiements par carte par la Core API sur le compte, avec 3-D Secure, et le paiement en un clic (jetons de carte enregistrés) activé par Midtrans pour les prélèvements ultérieurs.',
      'Des offres en roupies indonésiennes (IDR), en roupies entières\u00a0: Midtrans ne prend ni autre devise ni décimales.',
      'L’URL de notification affichée une fois ce compte enregistré, comme Payment Notification URL (Settings → Configuration)\u00a0; les notifications sont signées avec la clé serveur.',
    ],
    sips: [
      'Sips Office (JSON) au contrat avec votre banque (Mercanet, Sogenactif, Sherlock’s), avec les options portefeuille (wallet) et duplication.',
      'La clé secrète téléchargée depuis l’extranet marchand Sips, et sa version. Sips Office n’envoie pas de notifications : Chipin lit le résultat de chaque paiement chez Sips.',
    ],
    checkout: [
      'Les données de carte complètes acceptées par l’API (Checkout.com l’active pour les marchands PCI DSS SAQ D)\u00a0: Chipin envoie les numéros de carte à l’API Payments de Checkout.com.',
      'Une clé secrète avec les droits gateway (paiements, captures, annulations, remboursements) et le canal de traitement où les paiements sont enregistrés, avec 3-D Secure.',
      'Un webhook vers l’URL de notification affichée une fois ce compte enregistré, avec les événements de paiement\u00a0: sa clé secrète peut être ajoutée ensuite.',
    ],
    mercadopago: [
      'Une application dans «\u00a0Vos intégrations\u00a0» de Mercado Pago (Checkout API), avec son jeton d’accès de test ou de production. Chipin envoie les numéros de carte à l’API de Mercado Pago (card tokens)\u00a0: réservé aux marchands PCI DSS SAQ D.',
      'Une URL de notification Webhooks (celle affichée une fois ce compte enregistré) avec l’événement Paiements\u00a0: la signature secrète que Mercado Pago affiche alors peut être ajoutée ici.',
    ],
    braintree: [
      'Les clés d’API (identifiant marchand, clé publique et clé privée) de la passerelle Braintree, et un compte marchand dans la devise des offres comme compte par défaut.',
      'Les paiements carte envoyés par le serveur (PCI DSS SAQ D) et le Vault. Les cartes qui demandent 3-D Secure sont refusées\u00a0: Braintree mène le challenge dans son SDK client.',
      'Un webhook vers l’URL de notification affichée une fois ce compte enregistré.',
    ],
    hyperswitch: [
      'Un compte marchand Hyperswitch (hébergé, ou votre propre Hyperswitch : son adresse va dans « Adresse de l’API », et l’opérateur doit autoriser son hôte) avec une clé d’API, et un profil (business profile) dont le connecteur est le processeur qui prend les paiements (Bluesnap, Cybersource, dLocal, Nuvei, PayU, Worldpay, ACI…), avec 3-D Secure et les cartes enregistrées (mandats) activés.',
      'Chipin envoie les numéros de carte à l’API payments d’Hyperswitch, qui les garde dans son coffre : réservé aux marchands PCI DSS SAQ D, sauf si la conformité de votre Hyperswitch le couvre.',
      'L’URL de webhook du profil réglée sur l’URL de notification affichée une fois ce compte enregistré, et sa clé de hachage des réponses de paiement, qui signe chaque webhook, ajoutée ici.',
    ],
    halyk: [
      'Un terminal ePay avec les paiements par API (cryptogrammes de carte envoyés de serveur à serveur, pour les marchands certifiés PCI DSS) et les cartes enregistrées (CardID), son ClientID et son ClientSecret.',
      'Le terminal réglé sur le schéma en deux étapes (blocage, puis débit) dans les paramètres du cabinet ePay : Chipin bloque chaque paiement et le débite lui-même.',
      'Aucune notification vers Chipin : ePay ne signe pas son postLink, Chipin lit donc l’issue de chaque paiement chez ePay.',
    ],
  },
  webhookUrlOfPsp: (psp) => `URL de notification à saisir chez ${psp}`,
  webhookUrlOfPspHint: (psp) =>
    `${psp} envoie ici ses notifications de paiement. Saisissez-la dans le back-office de ${psp}, puis ajoutez ci-dessous ce que ${psp} donne pour elle.`,
  afterSaveHint:
    'Une fois ce compte enregistré, sa page affiche l’URL de notification à saisir chez le PSP\u00a0: les secrets que le PSP crée pour cette URL peuvent être ajoutés ensuite.',
  copy: 'Copier',
  copyNotificationUrl: 'Copier l’URL de notification',
  copied: 'Copié.',
  missingWebhookSecret: (field, psp) =>
    `Il manque encore «\u00a0${field}\u00a0»\u00a0: les notifications de ${psp} sont refusées d’ici là. Saisissez l’URL de notification ci-dessus chez ${psp}, puis ajoutez dans «\u00a0Modifier les réglages\u00a0» la valeur que ${psp} vous donne.`,
  needsAttention: 'À corriger',
  credentialUnusable: (field) =>
    `«\u00a0${field}\u00a0» est enregistré mais inutilisable. Les paiements qui en ont besoin échouent, et les notifications qui en ont besoin reçoivent «\u00a0renvoyez plus tard\u00a0», jusqu’à ce que vous le remplaciez dans «\u00a0Modifier les réglages\u00a0».`,
};
