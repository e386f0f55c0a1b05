import type { ErrorCode } from './errors.ts';

/** Languages with complete texts; every other locale falls back to English. */
export type Lang = 'en' | 'fr';

/** `fr_FR`, `fr-FR`, `fr` → 'fr'; anything else → 'en'. */
export function langOf(locale: string | undefined): Lang {
  return locale?.slice(0, 2).toLowerCase() === 'fr' ? 'fr' : 'en';
}

/** The first language of an Accept-Language header we have texts for. */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .sort((a, b) => b.q - a.q);
  for (const { tag, q } of ranked) {
    if (q <= 0) continue;
    if (tag.startsWith('fr')) return 'fr';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

/** User-facing texts (`info` of Token API errors): what a shopper or merchant staff may read. */
const INFO: Record<ErrorCode, Record<Lang, string>> = {
  invalid_request: { en: 'The request is not valid.', fr: "La requête n'est pas valide." },
  invalid_client: { en: 'Invalid credentials.', fr: 'Identifiants invalides.' },
  unsupported_grant_type: { en: 'This grant type is not supported.', fr: "Ce type d'autorisation n'est pas pris en charge." },
  invalid_token: { en: 'Invalid or expired credentials.', fr: 'Identifiants invalides ou expirés.' },
  purchase_already_aborted: { en: 'This purchase has already been cancelled.', fr: 'Cet achat a déjà été annulé.' },
  purchase_non_abortable: { en: 'This purchase can no longer be cancelled.', fr: 'Cet achat ne peut plus être annulé.' },
  idempotency_key_reused: { en: 'This request was already sent with different content.', fr: 'Cette requête a déjà été envoyée avec un contenu différent.' },
  idempotency_key_in_use: { en: 'This request is already being processed.', fr: 'Cette requête est déjà en cours de traitement.' },
  not_found: { en: 'Not found.', fr: 'Introuvable.' },
  invalid_input: { en: 'Some information is invalid.', fr: 'Certaines informations sont invalides.' },
  unsupported_media_type: { en: 'This content type is not supported.', fr: "Ce type de contenu n'est pas pris en charge." },
  payload_too_large: { en: 'The request is too large.', fr: 'La requête est trop volumineuse.' },
  too_many_requests: { en: 'Too many attempts, please try again later.', fr: 'Trop de tentatives, veuillez réessayer plus tard.' },
  internal_error: { en: 'An unexpected error occurred.', fr: 'Une erreur inattendue est survenue.' },
};

export function infoText(code: ErrorCode, lang: Lang): string {
  return INFO[code][lang];
}
