/**
 * The six languages of the original provider's interface, which its plugins send as `lang`
 * (docs/plugin-integration.md): German, English, Spanish, French, Italian, Dutch. Every other
 * language falls back to English.
 */
export const LANGS = ['de', 'en', 'es', 'fr', 'it', 'nl'] as const;

export type Lang = (typeof LANGS)[number];

/**
 * The two languages of the areas written only in English and French (the back office, the API's
 * error texts, and those shopper areas whose catalogues have not the six yet): a reader asking for
 * another language reads English there (docs/architecture.md#where-words-live).
 */
export type EnFr = Extract<Lang, 'en' | 'fr'>;

export const EN_FR: readonly EnFr[] = ['en', 'fr'];

/**
 * The one BCP 47 locale per language that numbers, amounts and dates are formatted in, each the
 * language of its largest market among the original provider's merchants. British English for
 * `en`: day-month order and a 24-hour clock, like the French the service started with.
 */
export const LOCALE: Readonly<Record<Lang, string>> = { de: 'de-DE', en: 'en-GB', es: 'es-ES', fr: 'fr-FR', it: 'it-IT', nl: 'nl-NL' };

/** Each language's name in itself, as a language switcher offers it. */
export const LANGUAGE_NAMES: Readonly<Record<Lang, string>> = { de: 'Deutsch', en: 'English', es: 'Español', fr: 'Français', it: 'Italiano', nl: 'Nederlands' };

/** `de_DE` for `de`: the spelling a purchase keeps as its `language` when we choose it (the v1 API's). */
export function languageTag(lang: Lang): string {
  return LOCALE[lang].replace('-', '_');
}

/**
 * The language of a locale in any of the spellings plugins and browsers send: `fr`, `fr_FR`,
 * `fr-BE`, `de_DE_formal` (a WordPress locale), `nl-NL`, `ES`, `it_IT.UTF-8`; one of `among`
 * (every language unless an area speaks fewer), else English. A language is its first subtag,
 * whatever follows it.
 */
export function langOf(locale: string | undefined): Lang;
export function langOf<L extends Lang>(locale: string | undefined, among: readonly L[]): L | 'en';
export function langOf(locale: string | undefined, among: readonly Lang[] = LANGS): Lang {
  return knownLang(locale, among) ?? 'en';
}

/**
 * The first language of an Accept-Language header that is one of `among` (every language unless
 * an area speaks fewer), by the header's weights; English when none is.
 */
export function langFromAcceptLanguage(header: string | undefined): Lang;
export function langFromAcceptLanguage<L extends Lang>(header: string | undefined, among: readonly L[]): L | 'en';
export function langFromAcceptLanguage(header: string | undefined, among: readonly Lang[] = LANGS): Lang {
  return acceptedLang(header, among) ?? 'en';
}

/** The first language of an Accept-Language header that is one of `among`, by its weights; undefined when none is. */
export function acceptedLang(header: string | undefined, among: readonly Lang[] = LANGS): Lang | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .sort((a, b) => b.q - a.q);
  for (const { tag, q } of ranked) {
    if (q <= 0) continue;
    const lang = knownLang(tag, among);
    if (lang) return lang;
  }
  return undefined;
}

/** The language of a locale in any spelling ({@link langOf}) when it is one of `among`, else undefined. */
export function knownLang(locale: string | undefined, among: readonly Lang[] = LANGS): Lang | undefined {
  const primary = /^\s*([A-Za-z]{2})(?![A-Za-z])/.exec(locale ?? '')?.[1]?.toLowerCase();
  return among.find((lang) => lang === primary);
}
