import { readdirSync, readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { EN_FR_AREAS, flatten, type Messages } from '../../src/i18n/catalogue.ts';
import { EN_FR, langFromAcceptLanguage, langOf, LANGS, languageTag, LOCALE } from '../../src/i18n/lang.ts';

/** The languages and the word catalogues (docs/architecture.md#where-words-live). */

const ROOT = new URL('../../src/i18n/catalogues/', import.meta.url);
const AREAS = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

function catalogue(area: string, file: string): Map<string, string> {
  return flatten(JSON.parse(readFileSync(new URL(`${area}/${file}`, ROOT), 'utf8')) as Messages);
}

type Ast = ReturnType<IntlMessageFormat['getAst']>;

/** The names of a message's placeholders, inside its plurals and selects too, each with its kind (`amount:argument`, `n:plural`). */
function placeholders(ast: Ast, into = new Set<string>()): Set<string> {
  const kinds = ['literal', 'argument', 'number', 'date', 'time', 'select', 'plural', 'pound', 'tag'];
  for (const el of ast) {
    if ('value' in el && el.type !== 0) into.add(`${String(el.value)}:${kinds[el.type]}`);
    if ('options' in el) for (const option of Object.values(el.options)) placeholders(option.value, into);
    if ('children' in el) placeholders(el.children, into);
  }
  return into;
}

describe('word catalogues', () => {
  it('has areas, each in the six languages, but those declared English and French (EN_FR_AREAS), which have exactly these two', () => {
    expect(AREAS.length).toBeGreaterThan(0);
    for (const area of AREAS) {
      const files = readdirSync(new URL(`${area}/`, ROOT)).sort();
      const langs: readonly string[] = (EN_FR_AREAS as readonly string[]).includes(area) ? EN_FR : LANGS;
      expect(files, area).toEqual(langs.map((l) => `${l}.json`));
    }
    // A declared area that has no folder is a declaration left behind.
    for (const area of EN_FR_AREAS) expect(AREAS, area).toContain(area);
  });

  it('every key of an area is in every language it speaks, with the same placeholders, and every message parses', () => {
    for (const area of AREAS) {
      const en = catalogue(area, 'en.json');
      const expected = new Map([...en].map(([key, message]) => [key, [...placeholders(new IntlMessageFormat(message, 'en', undefined, { ignoreTag: true }).getAst())].sort()]));
      for (const file of readdirSync(new URL(`${area}/`, ROOT))) {
        const lang = file.slice(0, 2) as (typeof LANGS)[number];
        const words = catalogue(area, file);
        expect([...words.keys()].sort(), `${area}/${file}: its keys`).toEqual([...en.keys()].sort());
        for (const [key, message] of words) {
          const ast = new IntlMessageFormat(message, LOCALE[lang], undefined, { ignoreTag: true }).getAst();
          expect([...placeholders(ast)].sort(), `${area}/${file}: ${key}`).toEqual(expected.get(key));
          expect(message.trim(), `${area}/${file}: ${key} is empty`).not.toBe('');
        }
      }
    }
  });
});

describe("the scripts' words", () => {
  it('take no values and read the same unformatted: the scripts carry the sdk catalogue without a message formatter (src/sdk/words.ts)', () => {
    for (const file of readdirSync(new URL('sdk/', ROOT))) {
      const lang = file.slice(0, 2) as (typeof LANGS)[number];
      for (const [key, message] of catalogue('sdk', file)) {
        const format = new IntlMessageFormat(message, LOCALE[lang], undefined, { ignoreTag: true });
        expect(
          format.getAst().every((el) => el.type === 0),
          `sdk/${file}: ${key}`,
        ).toBe(true);
        expect(String(format.format()), `sdk/${file}: ${key}`).toBe(message);
      }
    }
  });
});

describe("the demo shop's script messages", () => {
  it("hold nothing but plain {name} placeholders: the shop's script fills them in as the catalogue has them (src/sandbox/demo-shop-texts.ts)", () => {
    for (const file of readdirSync(new URL('demo-shop/', ROOT))) {
      const script = (JSON.parse(readFileSync(new URL(`demo-shop/${file}`, ROOT), 'utf8')) as { script: Messages }).script;
      for (const [key, message] of flatten(script)) {
        // Literals and plain arguments only (types 0 and 1), and no apostrophe ICU would read as a quote.
        expect(
          new IntlMessageFormat(message, 'en', undefined, { ignoreTag: true }).getAst().every((el) => el.type <= 1),
          `demo-shop/${file}: ${key}`,
        ).toBe(true);
        expect(message, `demo-shop/${file}: ${key}`).not.toContain("'");
      }
    }
  });
});

describe('languages', () => {
  it('reads a language in every spelling plugins and browsers send, and English for anything else', () => {
    const cases: [string | undefined, string][] = [
      ['de', 'de'],
      ['de_DE', 'de'],
      ['de-AT', 'de'],
      ['de_DE_formal', 'de'], // a WordPress locale
      ['es_ES', 'es'],
      ['es-MX', 'es'],
      ['ES', 'es'],
      ['fr_BE', 'fr'],
      ['it_IT', 'it'],
      ['it-CH', 'it'],
      ['nl_NL', 'nl'],
      ['nl_BE', 'nl'],
      ['nl_NL_formal', 'nl'],
      ['en_US', 'en'],
      ['pt_BR', 'en'],
      ['deu', 'en'], // three letters: not a two-letter language we speak
      ['xx', 'en'],
      ['', 'en'],
      [undefined, 'en'],
    ];
    for (const [locale, lang] of cases) expect(langOf(locale), String(locale)).toBe(lang);
  });

  it('an area that speaks fewer languages answers in one of its own, else English', () => {
    expect(langOf('de_DE', EN_FR)).toBe('en');
    expect(langOf('fr-CA', EN_FR)).toBe('fr');
    // The browser's first language this area speaks, by weight, not the first it lists.
    expect(langFromAcceptLanguage('de-DE,fr;q=0.8,en;q=0.5', EN_FR)).toBe('fr');
    expect(langFromAcceptLanguage('de-DE,fr;q=0.8,en;q=0.5')).toBe('de');
  });

  it('takes the browser languages by weight, skipping those we do not speak and those weighted 0', () => {
    expect(langFromAcceptLanguage('pt-BR,nl;q=0.9,en;q=0.8')).toBe('nl');
    expect(langFromAcceptLanguage('en;q=0.2,it-IT;q=0.7')).toBe('it');
    expect(langFromAcceptLanguage('es;q=0,de;q=0.1')).toBe('de');
    expect(langFromAcceptLanguage('*')).toBe('en');
    expect(langFromAcceptLanguage(undefined)).toBe('en');
  });

  it('keeps a language the service chooses as the v1 API spells it', () => {
    expect(LANGS.map(languageTag)).toEqual(['de_DE', 'en_GB', 'es_ES', 'fr_FR', 'it_IT', 'nl_NL']);
  });
});
