/** Languages with complete texts; every other locale falls back to English. */
export type Lang = 'en' | 'fr';

/**
 * The one BCP 47 locale per language that numbers, amounts and dates are formatted in. British
 * English for `en`: day-month order and a 24-hour clock, like the French the service started with.
 */
export const LOCALE: Readonly<Record<Lang, string>> = { en: 'en-GB', fr: 'fr-FR' };

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

/**
 * A hosted page's language: the shopper's choice (`?lang=`, the switcher), else the purchase's
 * language when the merchant set one, else the browser's Accept-Language (docs/hosted-payment.md#language).
 */
export function pageLang(asked: string | undefined, purchase: { language: string; languageSet: boolean } | undefined, acceptLanguage: string | undefined): Lang {
  if (asked) return langOf(asked);
  return purchase?.languageSet === false ? langFromAcceptLanguage(acceptLanguage) : langOf(purchase?.language);
}
