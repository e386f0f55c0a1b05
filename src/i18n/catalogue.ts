import { IntlMessageFormat } from 'intl-messageformat';
import { LANGS, LOCALE, type EnFr, type Lang } from './lang.ts';

/**
 * An area's words in one language, as its catalogue file holds them
 * (`src/i18n/catalogues/<area>/<lang>.json`): messages in ICU MessageFormat, keyed by meaning, in
 * groups (`"errors": { "card_declined": "…" }` is the key `errors.card_declined`).
 */
export interface Messages {
  readonly [key: string]: string | Messages;
}

/** Every key of a catalogue, its groups joined with dots: `errors.card_declined`. */
export type KeyOf<T> = {
  [K in keyof T & string]: T[K] extends string ? K : `${K}.${KeyOf<T[K]>}`;
}[keyof T & string];

/** What a message's placeholders are given: text, numbers (plurals) and dates are formatted by Intl in the language's locale. */
export type Values = Readonly<Record<string, string | number | Date>>;

/** A catalogue's messages by key, its groups flattened (`errors.card_declined`). */
export function flatten(messages: Messages, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    if (typeof value === 'string') flat.set(`${prefix}${key}`, value);
    else for (const [k, v] of flatten(value, `${prefix}${key}.`)) flat.set(k, v);
  }
  return flat;
}

/**
 * The areas that speak English and French only, by decision, not by a catalogue file missing: the
 * back office, which takes another language once that language is complete there too (issue 77).
 * Every other area speaks the six languages. `Catalogue` takes two catalogues for these areas and
 * six for the others, and test/unit/i18n.test.ts holds each area's folder to the same files
 * (docs/architecture.md#where-words-live).
 */
export const EN_FR_AREAS = ['backoffice'] as const;

type EnFrArea = (typeof EN_FR_AREAS)[number];

/**
 * The words of one area (the hosted pages, the shopper space, the e-mails and SMS, the back
 * office…), in the languages it speaks: the six, or English and French for an area of `EN_FR_AREAS`.
 * Messages are parsed once, on first use, and formatted with intl-messageformat in the
 * language's locale (docs/dependencies.md). Tags are not parsed: a `<` in a message is text, and
 * the pages escape whatever a message gives them.
 */
export class Catalogue<K extends string> {
  /** The languages this area speaks, English first. */
  readonly langs: readonly Lang[];
  private readonly messages = new Map<Lang, Map<string, string>>();
  private readonly compiled = new Map<string, IntlMessageFormat>();
  /** The English catalogue as its file nests it. */
  private readonly english: Messages;

  /** An area declared English and French (`EN_FR_AREAS`): its two catalogues. */
  constructor(area: EnFrArea, catalogues: Readonly<Record<EnFr, Messages>>);
  /** Any other area: its catalogues in the six languages. */
  constructor(area: string, catalogues: Readonly<Record<Lang, Messages>>);
  constructor(
    readonly area: string,
    catalogues: { readonly en: Messages } & Partial<Record<Lang, Messages>>,
  ) {
    this.english = catalogues.en;
    for (const lang of LANGS) {
      const messages = catalogues[lang];
      if (messages) this.messages.set(lang, flatten(messages));
    }
    this.langs = ['en', ...LANGS.filter((l) => l !== 'en' && this.messages.has(l))];
  }

  /** `lang` when this area speaks it, else English. */
  speaks(lang: Lang): Lang {
    return this.messages.has(lang) ? lang : 'en';
  }

  /**
   * The message `key` in `lang` (in English when the area does not speak it), its placeholders
   * filled from `values`. Throws when the key is in no catalogue of the area, or when a value the
   * message needs is missing: both are bugs that the catalogue test and the pages' tests catch.
   */
  text(lang: Lang, key: K, values?: Values): string {
    return String(this.compile(lang, key).format(values));
  }

  /** The message `key` in `lang` (or English), parsed on its first use. */
  private compile(lang: Lang, key: K): IntlMessageFormat {
    const spoken = this.speaks(lang);
    const id = `${spoken}:${key}`;
    let format = this.compiled.get(id);
    if (!format) {
      const message = this.messages.get(spoken)?.get(key);
      if (message === undefined) throw new Error(`no message ${key} in the ${spoken} catalogue of ${this.area}`);
      format = new IntlMessageFormat(message, LOCALE[spoken], undefined, { ignoreTag: true });
      this.compiled.set(id, format);
    }
    return format;
  }

  /**
   * Every message of the area that takes no value, in `lang`, formatted and nested in its groups
   * as the catalogue file has them: the bulk of a typed view with many plain words (the back
   * office's, src/http/backoffice/texts.ts), which gives the messages that take values as
   * functions over `text`. A message that takes values is left out: a view that forgot to give
   * one lacks it (test/dashboard/texts-keys.test.ts walks the view for every key).
   */
  fixed(lang: Lang): Messages {
    const walk = (messages: Messages, prefix: string): Messages => {
      const tree: Record<string, string | Messages> = {};
      for (const [name, value] of Object.entries(messages)) {
        const key = `${prefix}${name}` as K;
        if (typeof value !== 'string') tree[name] = walk(value, `${key}.`);
        // Type 0 is a literal: anything else (an argument, a plural, a select) takes a value.
        else if (
          this.compile(lang, key)
            .getAst()
            .every((el) => el.type === 0)
        )
          tree[name] = this.text(lang, key);
      }
      return tree;
    };
    return walk(this.english, '');
  }

  /**
   * The messages of a group (`errors`) in `lang`, by their key in the group (`card_declined`):
   * the words for a code the code does not know in advance (an error's, a state's).
   */
  group(lang: Lang, group: string): Readonly<Record<string, string>> {
    const prefix = `${group}.`;
    const words: Record<string, string> = {};
    for (const key of this.messages.get('en')?.keys() ?? []) {
      if (key.startsWith(prefix) && !key.slice(prefix.length).includes('.')) words[key.slice(prefix.length)] = this.text(lang, key as K);
    }
    return words;
  }
}

/**
 * A value per language, each built by `build` on its first read: an area's typed view of its
 * words (the hosted pages', the shopper space's) costs nothing for a language no page has asked for.
 */
export function perLanguage<T>(build: (lang: Lang) => T): Readonly<Record<Lang, T>> {
  const built = new Map<Lang, T>();
  return Object.defineProperties(
    {} as Record<Lang, T>,
    Object.fromEntries(
      LANGS.map((lang) => [
        lang,
        {
          enumerable: true,
          get: () => {
            let value = built.get(lang);
            if (value === undefined) built.set(lang, (value = build(lang)));
            return value;
          },
        },
      ]),
    ),
  );
}
