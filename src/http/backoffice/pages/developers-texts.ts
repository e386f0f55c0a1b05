import type { WebhookRule } from '../../../delivery/endpoints.ts';

function webhookRefusalEn(r: WebhookRule): string {
  switch (r.code) {
    case 'too_long':
      return `Webhook URL: must be at most ${r.max} characters.`;
    case 'not_absolute':
      return 'Webhook URL: must be a full address starting with https:// (or http:// outside production).';
    case 'not_http':
      return 'Webhook URL: must be an http(s) address.';
    case 'has_credentials':
      return 'Webhook URL: must not carry a user name or password.';
    case 'not_https':
      return 'Webhook URL: must start with https:// in production.';
    case 'internal_address':
      return `Webhook URL: must not point to an internal address (${r.host}).`;
    case 'localhost':
      return 'Webhook URL: must not point to localhost.';
    case 'unknown_event':
      return `Events sent: "${r.name}" is not an event Chipin sends.`;
    case 'no_event':
      return 'Events sent: tick at least one event.';
  }
}

function webhookRefusalFr(r: WebhookRule): string {
  switch (r.code) {
    case 'too_long':
      return `URL du webhook : ${r.max} caractères au plus.`;
    case 'not_absolute':
      return 'URL du webhook : saisissez une adresse complète commençant par https:// (ou http:// hors production).';
    case 'not_http':
      return 'URL du webhook : doit être une adresse http(s).';
    case 'has_credentials':
      return 'URL du webhook : ne doit contenir ni nom d’utilisateur ni mot de passe.';
    case 'not_https':
      return 'URL du webhook : doit commencer par https:// en production.';
    case 'internal_address':
      return `URL du webhook : ne doit pas viser une adresse interne (${r.host}).`;
    case 'localhost':
      return 'URL du webhook : ne doit pas viser localhost.';
    case 'unknown_event':
      return `Événements envoyés : « ${r.name} » n’est pas un événement envoyé par Chipin.`;
    case 'no_event':
      return 'Événements envoyés : cochez au moins un événement.';
  }
}

/** The words of the Developers page (`developers-page.ts`: API keys, the webhook) and a webhook delivery’s page (`delivery-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const DEVELOPERS_TEXT_EN = {
  apiKeys: 'API keys',
  apiKeysHint: 'A key and its secret get access tokens at POST /api/token. The secret is shown once, when the key is made.',
  revokedAt: 'Revoked',
  live: 'Live',
  noApiKey: 'This account has no API key.',
  createKey: 'Create an API key',
  rotateKey: 'Rotate',
  rotateKeyLabel: (key: string) => `Rotate ${key}`,
  revokeKey: 'Revoke',
  revokeKeyLabel: (key: string) => `Revoke ${key}`,
  keyCreated: 'New API key. Copy the secret now: it is never shown again.',
  keyRotated: (old: string) => `${old} is revoked: it gets no new token, and its tokens stop within seconds. Copy the new secret now: it is never shown again.`,
  keyRevoked: (key: string) => `${key} is revoked: it gets no new token, and its tokens stop within seconds.`,
  apiSecret: 'Secret',
  confirmRotateTitle: 'Rotate this API key?',
  confirmRotate: (key: string) => `${key} will be revoked now and a new key made in its place: programs using ${key} stop working until they use the new one.`,
  confirmRotateButton: 'Confirm the rotation',
  confirmRevokeTitle: 'Revoke this API key?',
  confirmRevoke: (key: string) => `${key} will stop working now, for good: programs using it can no longer call the API.`,
  confirmRevokeButton: 'Confirm the revocation',
  keyNotFound: 'There is no such live API key in this account.',
  webhook: 'Webhook',
  webhookUrl: 'Webhook URL',
  webhookUrlHint: 'Where Chipin POSTs your events (https in production).',
  webhookEvents: 'Events sent',
  webhookRefusal: webhookRefusalEn,
  saveWebhook: 'Save the webhook',
  webhookSaved: 'Webhook saved. Copy the new signing secret and token now: they are not shown again on this page.',
  webhookSavedKept: 'Webhook saved. Its signing secret and token are unchanged.',
  rotateWebhookSecret: 'Make a new signing secret and token',
  rotateWebhookHint: 'The previous secret keeps signing beside the new one for 24 hours, so your checks go on working while you deploy it. The token changes at once.',
  webhookPreviousSecret: (until: string) => `The previous signing secret also signs every webhook until ${until}.`,
  webhookDisabled: (reason: string) => `Disabled: the endpoint answered 410 Gone (${reason}). Save the URL again to re-enable it.`,
  webhookSecretNote: 'The signing secret and token are not shown here (the API reads them: GET /api/backoffice/webhook). Saving keeps them; ask for new ones below.',
  noWebhook: 'No webhook URL is set.',
  signingSecret: 'Signing secret',
  payloadToken: 'Payload token',
  deliveries: 'Recent deliveries',
  deliveriesHint: 'The 20 newest: webhooks and back-mode notifications.',
  replay: 'Replay',
  replayLabel: (id: string) => `Replay ${id}`,
  replayed: 'Delivery queued to be sent again now.',
  replayDisabled: 'The webhook endpoint is disabled or removed: save its URL again first.',
  noDelivery: 'No delivery yet.',
  olderDeliveries: 'Older deliveries',
  newestDeliveries: 'Newest deliveries',
  deliveryTitle: 'Delivery',
  backToDevelopers: '← Developers',
  attemptLog: 'Attempts',
  started: 'Started',
  duration: 'Duration',
  outcome: 'Outcome',
  nextAttempt: 'Next attempt',
  noAttempt: 'Not tried yet.',
  sendTestEvent: 'Send a test event',
  testEventHint: 'Sends one signed webhook to this URL now, as deliveries are sent (triggerID 0, a made-up purchase id): not retried, not in the delivery log.',
  testEventSent: (trigger: string, status: number, ms: number) => `Test event ${trigger} sent: the endpoint answered ${status} in ${ms} ms.`,
  testEventFailed: (trigger: string, answer: string) => `Test event ${trigger} not accepted: ${answer}.`,
  testEventNoEndpoint: 'Save a webhook URL first: there is nowhere to send a test event.',
  deliveryNotFound: 'There is no such delivery in this account.',
  badDeliveryCursor: 'This page of the delivery log does not exist: the link is damaged. Open the Developers page again.',
};

export const DEVELOPERS_TEXT_FR: typeof DEVELOPERS_TEXT_EN = {
  apiKeys: 'Clés d’API',
  apiKeysHint: 'Une clé et son secret obtiennent des jetons d’accès par POST /api/token. Le secret n’est affiché qu’une fois, à la création de la clé.',
  revokedAt: 'Révoquée',
  live: 'Active',
  noApiKey: 'Ce compte n’a aucune clé d’API.',
  createKey: 'Créer une clé d’API',
  rotateKey: 'Renouveler',
  rotateKeyLabel: (key) => `Renouveler ${key}`,
  revokeKey: 'Révoquer',
  revokeKeyLabel: (key) => `Révoquer ${key}`,
  keyCreated: 'Nouvelle clé d’API. Copiez le secret maintenant : il n’est plus jamais affiché.',
  keyRotated: (old) =>
    `${old} est révoquée : elle n’obtient plus de jeton, et ses jetons cessent de marcher en quelques secondes. Copiez le nouveau secret maintenant : il n’est plus jamais affiché.`,
  keyRevoked: (key) => `${key} est révoquée : elle n’obtient plus de jeton, et ses jetons cessent de marcher en quelques secondes.`,
  apiSecret: 'Secret',
  confirmRotateTitle: 'Renouveler cette clé d’API ?',
  confirmRotate: (key) =>
    `${key} sera révoquée maintenant et une nouvelle clé créée à sa place : les programmes qui utilisent ${key} s’arrêtent jusqu’à ce qu’ils utilisent la nouvelle.`,
  confirmRotateButton: 'Confirmer le renouvellement',
  confirmRevokeTitle: 'Révoquer cette clé d’API ?',
  confirmRevoke: (key) => `${key} cessera de marcher maintenant, définitivement : les programmes qui l’utilisent ne peuvent plus appeler l’API.`,
  confirmRevokeButton: 'Confirmer la révocation',
  keyNotFound: 'Ce compte n’a pas de clé d’API active de ce nom.',
  webhook: 'Webhook',
  webhookUrl: 'URL du webhook',
  webhookUrlHint: 'Où Chipin envoie vos événements (https en production).',
  webhookEvents: 'Événements envoyés',
  webhookRefusal: webhookRefusalFr,
  saveWebhook: 'Enregistrer le webhook',
  webhookSaved: 'Webhook enregistré. Copiez maintenant le nouveau secret de signature et le jeton : ils ne sont plus affichés sur cette page.',
  webhookSavedKept: 'Webhook enregistré. Son secret de signature et son jeton sont inchangés.',
  rotateWebhookSecret: 'Créer un nouveau secret de signature et un nouveau jeton',
  rotateWebhookHint:
    'L’ancien secret continue de signer à côté du nouveau pendant 24 heures : vos vérifications fonctionnent pendant que vous le déployez. Le jeton change tout de suite.',
  webhookPreviousSecret: (until) => `L’ancien secret de signature signe aussi chaque webhook jusqu’au ${until}.`,
  webhookDisabled: (reason) => `Désactivé : l’adresse a répondu 410 Gone (${reason}). Enregistrez à nouveau l’URL pour le réactiver.`,
  webhookSecretNote:
    'Le secret de signature et le jeton ne sont pas affichés ici (l’API les lit : GET /api/backoffice/webhook). Enregistrer les conserve ; demandez-en de nouveaux ci-dessous.',
  noWebhook: 'Aucune URL de webhook n’est définie.',
  signingSecret: 'Secret de signature',
  payloadToken: 'Jeton du message',
  deliveries: 'Envois récents',
  deliveriesHint: 'Les 20 plus récents : webhooks et notifications du mode back.',
  replay: 'Renvoyer',
  replayLabel: (id) => `Renvoyer ${id}`,
  replayed: 'Envoi remis en file pour être renvoyé maintenant.',
  replayDisabled: 'L’adresse du webhook est désactivée ou supprimée : enregistrez d’abord à nouveau son URL.',
  noDelivery: 'Aucun envoi pour l’instant.',
  olderDeliveries: 'Envois plus anciens',
  newestDeliveries: 'Envois les plus récents',
  deliveryTitle: 'Envoi',
  backToDevelopers: '← Développeurs',
  attemptLog: 'Tentatives',
  started: 'Début',
  duration: 'Durée',
  outcome: 'Issue',
  nextAttempt: 'Prochaine tentative',
  noAttempt: 'Pas encore tenté.',
  sendTestEvent: 'Envoyer un événement de test',
  testEventHint:
    'Envoie maintenant un webhook signé à cette URL, comme les envois réels (triggerID 0, un identifiant d’achat fictif)\u00a0: sans nouvelle tentative, absent du journal des envois.',
  testEventSent: (trigger: string, status: number, ms: number) => `Événement de test ${trigger} envoyé\u00a0: le point d’accès a répondu ${status} en ${ms} ms.`,
  testEventFailed: (trigger: string, answer: string) => `Événement de test ${trigger} non accepté\u00a0: ${answer}.`,
  testEventNoEndpoint: 'Enregistrez d’abord une URL de webhook\u00a0: il n’y a nulle part où envoyer un événement de test.',
  deliveryNotFound: 'Cet envoi n’existe pas dans ce compte.',
  badDeliveryCursor: 'Cette page du journal des envois n’existe pas\u00a0: le lien est abîmé. Rouvrez la page Développeurs.',
};
