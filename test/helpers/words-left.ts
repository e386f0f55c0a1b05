import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { flatten, type Messages } from '../../src/i18n/catalogue.ts';
import { LOCALE, type Lang } from '../../src/i18n/lang.ts';

const ROOT = new URL('../../src/i18n/catalogues/', import.meta.url);

function catalogue(area: string, lang: Lang): Map<string, string> {
  return flatten(JSON.parse(readFileSync(new URL(`${area}/${lang}.json`, ROOT), 'utf8')) as Messages);
}

/** What a reader sees of a page or message: its text without tags, entities decoded, spaces collapsed. */
export function visibleText(htmlOrText: string): string {
  return htmlOrText
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' })[e] ?? ' ')
    .replace(/[\s\u00a0\u202f]+/g, ' ');
}

type Ast = ReturnType<IntlMessageFormat['getAst']>;

/** The parser's element types (`@formatjs/icu-messageformat-parser`'s TYPE): a literal, a select, a plural. */
const TYPE = { literal: 0, select: 5, plural: 6 } as const;

/** A message's literal runs: the text between its placeholders, inside its plurals' and selects' options too. */
function literalRuns(ast: Ast, into: string[] = []): string[] {
  let run = '';
  for (const el of ast) {
    if (el.type === TYPE.literal && 'value' in el) {
      run += String(el.value);
      continue;
    }
    into.push(run);
    run = '';
    if ((el.type === TYPE.select || el.type === TYPE.plural) && 'options' in el) for (const option of Object.values(el.options)) literalRuns(option.value, into);
  }
  into.push(run);
  return into;
}

function runsOf(message: string, lang: Lang): string[] {
  return literalRuns(new IntlMessageFormat(message, LOCALE[lang], undefined, { ignoreTag: true }).getAst()).map((r) => r.replace(/[\s\u00a0\u202f]+/g, ' ').trim());
}

/**
 * The English words of the areas' catalogues found in a page or message in another language: each
 * English message's literal runs (the text between its placeholders, in its plurals' and selects'
 * options too) of two words or more (with letters) that the language's own message of that key does not hold.
 * Empty when nothing English is left; `allowed`: runs that are the same in every language (brand names).
 */
export function englishLeft(htmlOrText: string, lang: Lang, areas: readonly string[], allowed: readonly string[] = []): string[] {
  if (lang === 'en') return [];
  const text = visibleText(htmlOrText);
  const left = new Set<string>();
  for (const area of areas) {
    for (const { key, runs } of englishRuns(area, lang)) {
      for (const words of runs) if (!allowed.includes(words) && text.includes(words)) left.add(`${area}.${key}: ${words}`);
    }
  }
  return [...left];
}

const RUNS = new Map<string, { key: string; runs: string[] }[]>();

/** Per key of an area, the English runs of two words or more that the language's own message does not hold (read once per area and language). */
function englishRuns(area: string, lang: Lang): { key: string; runs: string[] }[] {
  const id = `${area}:${lang}`;
  let found = RUNS.get(id);
  if (!found) {
    const own = catalogue(area, lang);
    found = [...catalogue(area, 'en')].map(([key, message]) => {
      const ownRuns = new Set(runsOf(own.get(key) ?? '', lang));
      return { key, runs: runsOf(message, 'en').filter((words) => words.split(' ').filter((word) => /\p{L}/u.test(word)).length >= 2 && !ownRuns.has(words)) };
    });
    RUNS.set(id, found);
  }
  return found;
}
