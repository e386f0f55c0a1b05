import type { EnFr } from '../../i18n/lang.ts';
import type { ConnectorDefinition, CredentialField } from '../../psp/definition.ts';

/**
 * The back office's French of what a connector's definition says in English (src/psp/<name>/definition.ts),
 * which the API gives as it is: where to find each credential, and its format. Not in the
 * back office's catalogue, whose English would copy the definitions'.
 *
 * Where the merchant finds each credential in the PSP's back office, in French, by
 * `<psp>.<field>`. The English is the field's own `description` (src/psp/<name>/definition.ts),
 * which `GET /api/backoffice/psps` gives as it is; the back office shows the page's language
 * (docs/back-office.md). The PSP's menu names stay as its back office shows them
 * where it has no French version. test/dashboard/french.test.ts checks that no field lacks one.
 */
export const CREDENTIAL_HELP_FR: Readonly<Record<string, string>> = {
  'stripe.secret_key': 'Dashboard Stripe → Développeurs → Clés API → Clé secrète (sk_test_… en mode test, sk_live_… en mode production).',
  'stripe.webhook_secret':
    'Dashboard Stripe → Développeurs → Webhooks → le webhook dirigé vers l’URL de notification de Chipin (affichée une fois le compte enregistré) → Secret de signature (whsec_…). Chaque webhook a le sien.',
  'adyen.merchant_account': 'Customer Area → Settings → Merchant accounts\u00a0: le code du compte marchand (pas celui du compte société).',
  'adyen.api_key': 'Customer Area → Developers → API credentials → votre identifiant ws_… → Server settings → API key (Generate API key).',
  'adyen.hmac_key':
    'Customer Area → Developers → Webhooks → votre webhook Standard, dirigé vers l’URL de notification de Chipin (affichée une fois le compte enregistré) → Security → HMAC key (en hexadécimal).',
  'adyen.report_api_key':
    'Sert au rapprochement à partir des rapports d’Adyen. Customer Area → Developers → API credentials → votre utilisateur du service de rapports (report…@Company.…) → API key\u00a0; son rôle doit lui permettre de télécharger les rapports du compte marchand, et le rapport Payment accounting doit être généré chaque jour (Reports → Payment accounting → automatique).',
  'adyen.live_url_prefix': 'En production seulement. Customer Area (live) → Developers → API URLs → Prefix, par exemple 1797a841fbb37ca7-AdyenDemo.',
  'lyra.shop_id': 'L’identifiant de la boutique (8 chiffres)\u00a0: Back Office Expert, Paramétrage > Boutique > Clés d’API REST, l’utilisateur.',
  'lyra.password':
    'Le mot de passe de l’API REST\u00a0: Back Office Expert, Paramétrage > Boutique > Clés d’API REST, le mot de passe de test (testpassword_…) pour l’environnement de test, celui de production (prodpassword_…) pour la production. Il signe aussi l’IPN.',
  'lyra.hmac_key':
    'La clé HMAC-SHA-256 (de test ou de production, comme le mot de passe)\u00a0: Back Office Expert, Paramétrage > Boutique > Clés d’API REST. Elle signe le retour du navigateur (kr-hash).',
  'ogone.pspid': 'Votre PSPID\u00a0: le nom de compte avec lequel vous vous connectez au back-office Ogone (affiché en haut de chaque page).',
  'ogone.user_id': 'Le USERID d’un utilisateur d’API\u00a0: Configuration › Users › New user, avec la case «\u00a0Special user for API (no access to admin.)\u00a0» cochée.',
  'ogone.password': 'Le mot de passe de cet utilisateur d’API (PSWD).',
  'ogone.sha_in':
    'La phrase secrète SHA-IN\u00a0: Configuration › Technical information › Data and origin verification › «\u00a0Checks for DirectLink\u00a0». Elle ne doit pas contenir de «\u00a0[\u00a0».',
  'ogone.sha_out':
    'La phrase secrète SHA-OUT\u00a0: Configuration › Technical information › Transaction feedback › «\u00a0All transaction submission modes\u00a0». Elle ne doit pas contenir de «\u00a0[\u00a0».',
  'ogone.hash_algorithm': 'L’algorithme de hachage choisi dans Configuration › Technical information › Global security parameters (SHA-1, SHA-256 ou SHA-512).',
  'hipay.username':
    'L’identifiant de l’API\u00a0: back-office HiPay → Integration → Security settings → Api credentials («\u00a0Username\u00a0»). Prenez les identifiants privés, pas les publics du SDK JavaScript.',
  'hipay.password': 'Le mot de passe de l’API, affiché avec son identifiant (Integration → Security settings → Api credentials → «\u00a0Password\u00a0»).',
  'hipay.secret_passphrase':
    'La phrase secrète\u00a0: Integration → Security settings → Secret passphrase. HiPay signe chaque notification avec elle (en-tête X-ALLOPASS-SIGNATURE, en SHA-1, SHA-256 ou SHA-512 selon le choix fait là).',
  'monetico.tpe':
    'Votre numéro de TPE (terminal virtuel)\u00a0: 7 caractères, affiché dans le back-office Monetico (Tableau de bord commerçant) à côté de chaque terminal, et dans le courriel d’ouverture de votre contrat.',
  'monetico.societe':
    'Votre code société\u00a0: donné par Monetico avec le TPE\u00a0; le back-office l’affiche dans les paramètres techniques du terminal. Majuscules et minuscules comptent.',
  'monetico.key':
    'La clé de sécurité (qui calcule le MAC)\u00a0: 40 caractères hexadécimaux, à télécharger dans le back-office (Paramétrage › Sécurité › clé), pour le TPE de test ou pour celui de production\u00a0: elles diffèrent.',
  'centralpay.login':
    'L’identifiant de l’API\u00a0: back-office CentralPay → Administration → API access («\u00a0Login\u00a0»). Les back-offices de test et de production ont chacun le leur.',
  'centralpay.api_key': 'La clé d’API affichée avec l’identifiant (Administration → API access). Les clés de test et de production diffèrent.',
  'centralpay.point_of_sale_id':
    'L’identifiant du point de vente où les paiements sont enregistrés\u00a0: back-office → Points of sale → le point de vente («\u00a0pointOfSaleId\u00a0»).',
  'fondy.merchant_id':
    'L’identifiant du marchand\u00a0: portail marchand Fondy (Flitt) → le marchand → Paramètres techniques («\u00a0Merchant ID\u00a0»). En mode test\u00a0: le marchand de test public 1549901.',
  'fondy.payment_key':
    'La clé de paiement de ce marchand (Paramètres techniques → «\u00a0Payment key\u00a0»), qui signe les requêtes ainsi que les réponses et notifications de Fondy. Pas la clé de crédit (versements).',
  'payline.merchant_id': 'Votre identifiant commerçant\u00a0: centre d’administration Payline › Paramètres › Modifier ma clé d’accès, affiché à côté de la clé.',
  'payline.access_key':
    'La clé d’accès des services web\u00a0: centre d’administration Payline › Paramètres › Modifier ma clé d’accès. Elle n’est affichée qu’une fois, quand elle est générée.',
  'payline.contract_number':
    'Le numéro du contrat de paiement par carte de votre point de vente\u00a0: centre d’administration Payline › Paramètres › Points de vente › votre point de vente › Moyens de paiement.',
  'dalenys.identifier':
    'L’IDENTIFIER de votre compte Dalenys (un par compte et par devise)\u00a0: back-office Dalenys › Configuration › votre compte, «\u00a0Identifier\u00a0». Majuscules et minuscules comptent.',
  'dalenys.password':
    'Le mot de passe du compte, qui signe chaque requête et chaque notification (HASH)\u00a0: back-office Dalenys › Configuration › votre compte, «\u00a0Password\u00a0». Majuscules et minuscules comptent. Saisissez-y aussi, comme URL de notification, celle que Chipin affiche pour ce compte.',
  'paybox.site':
    'Votre numéro de site (7 chiffres)\u00a0: dans le courriel «\u00a0Paramètres de compte\u00a0» envoyé par Paybox à l’ouverture du compte, et en haut du back-office Paybox.',
  'paybox.rank': 'Votre numéro de rang (2 ou 3 chiffres, par exemple 01 ou 001)\u00a0: dans le même courriel «\u00a0Paramètres de compte\u00a0», à côté du numéro de site.',
  'paybox.identifier':
    'Votre identifiant Paybox (1 à 9 chiffres)\u00a0: dans le courriel «\u00a0Paramètres de compte\u00a0». 3-D Secure (RemoteMPI) désigne votre boutique par lui.',
  'paybox.cle':
    'La clé Paybox Direct (CLE)\u00a0: le mot de passe back-office de l’accès Direct que Paybox envoie pour les appels de serveur à serveur (10 caractères depuis 2013). Ce n’est pas la clé HMAC de Paybox System. L’option Paybox Direct Plus doit être active sur le contrat.',
  'paybox.public_key':
    'La clé publique de Paybox, avec laquelle Chipin vérifie la signature du retour 3-D Secure (RemoteMPI)\u00a0: le fichier pubkey.pem de la documentation d’intégration de Paybox (le même pour e-Transactions), collé en entier (ses retours à la ligne sont ignorés) ou seulement la partie base64 entre ses lignes BEGIN et END.',
  'sips.brand':
    'L’offre Sips de votre banque\u00a0: mercanet (BNP Paribas), sogenactif (Société Générale), sherlocks (LCL) ou worldline (un contrat avec Worldline même). Elle détermine le serveur que Chipin appelle.',
  'sips.merchant_id': 'Le merchantId de votre boutique\u00a0: le numéro à 15 chiffres du courriel de bienvenue de votre banque, affiché aussi en haut de l’extranet marchand Sips.',
  'sips.secret_key': 'La clé secrète de votre boutique\u00a0: extranet marchand Sips › Secret keys (téléchargez-la là\u00a0; votre banque ne l’envoie jamais par courriel).',
  'sips.key_version': 'La version de cette clé secrète, affichée à côté d’elle dans l’extranet marchand (1 pour la première clé).',
  'checkout.secret_key': 'Dashboard → Developers → Keys → la clé secrète (sk_sbox_… en sandbox, sk_… en production).',
  'checkout.processing_channel_id': 'Dashboard → Settings → Processing channels → l’identifiant du canal (pc_…).',
  'checkout.webhook_secret':
    'Dashboard → Developers → Webhooks → le webhook dirigé vers l’URL de notification de Chipin (affichée une fois le compte enregistré) → sa clé secrète, qui signe chaque événement (Cko-Signature).',
  'mercadopago.access_token': 'Your integrations → votre application → Test credentials ou Production credentials → Access Token (TEST-… ou APP_USR-…).',
  'mercadopago.webhook_secret':
    'Your integrations → votre application → Webhooks → Configure notifications\u00a0: l’URL que Chipin affiche une fois le compte enregistré, l’événement «\u00a0Payments\u00a0», puis Save\u00a0; la signature secrète s’affiche alors.',
  'midtrans.server_key': 'Dashboard Midtrans (MAP) → Settings → Access Keys → Server Key. Les dashboards sandbox et production ont chacun la leur.',
  'midtrans.client_key': 'Dashboard Midtrans (MAP) → Settings → Access Keys → Client Key.',
  'braintree.merchant_id': 'Control Panel › Settings (la roue dentée) › Business › Merchant ID, ou API › API Keys, «\u00a0Merchant ID\u00a0».',
  'braintree.public_key': 'Control Panel › Settings › API › API Keys › la «\u00a0Public Key\u00a0» de la clé.',
  'braintree.private_key':
    'Control Panel › Settings › API › API Keys › «\u00a0View\u00a0» sur la Private Key de la clé. Elle signe aussi les webhooks\u00a0: dirigez un webhook vers l’URL de notification que Chipin affiche pour ce compte (Settings › Webhooks).',
  'halyk.client_id':
    'Le ClientID donné par ePay à l’inscription, aussi affiché dans le cabinet marchand ePay (epay.homebank.kz). Les environnements de test et de production ont chacun le leur.',
  'halyk.client_secret': 'Le ClientSecret donné avec le ClientID (cabinet marchand ePay). Les secrets de test et de production diffèrent.',
  'halyk.terminal_id': 'Le TerminalID du point de vente où les paiements sont faits (cabinet marchand ePay). Il doit utiliser le schéma en deux étapes (blocage, puis débit).',
  'halyk.public_key':
    'La clé publique RSA d’ePay pour les cryptogrammes de carte, seulement si ePay vous en a donné une autre : laissez vide pour utiliser celle qu’ePay publie pour cet environnement.',
  'hyperswitch.api_key': 'Control centre Hyperswitch → Developers → API Keys → une nouvelle clé du compte marchand (affichée une seule fois).',
  'hyperswitch.profile_id':
    'Control centre Hyperswitch → Developers → Payment settings → le profil (business profile) dont le processeur (connecteur) et le routage prennent les paiements de Chipin\u00a0: son Profile ID (pro_…).',
  'hyperswitch.payment_response_hash_key':
    'Control centre Hyperswitch → Developers → Payment settings → le même profil → Payment response hash key, qui signe chaque webhook (X-Webhook-Signature-512)\u00a0; réglez l’URL de webhook du profil sur l’URL de notification de Chipin (affichée une fois le compte enregistré).',
};

/** Where to find a credential in the PSP's back office, in `lang`. */
export function credentialHelp(lang: EnFr, def: ConnectorDefinition, field: CredentialField): string {
  return lang === 'fr' ? (CREDENTIAL_HELP_FR[`${def.name}.${field.name}`] ?? field.description) : field.description;
}

/**
 * A credential's expected format in French, by `<psp>.<field>`: the English is the field's own
 * `format` (src/psp/<name>/definition.ts), which the API's refusals and `GET /api/backoffice/psps`
 * give as it is. test/dashboard/french.test.ts checks that no field with a format lacks one.
 */
export const CREDENTIAL_FORMAT_FR: Readonly<Record<string, string>> = {
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
};

/** A credential's expected format, in `lang`. */
export function credentialFormat(lang: EnFr, def: ConnectorDefinition, field: CredentialField): string {
  return (lang === 'fr' ? CREDENTIAL_FORMAT_FR[`${def.name}.${field.name}`] : undefined) ?? field.format ?? '';
}
