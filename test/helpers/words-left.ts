import { readFileSync } from 'node:fs';
import { flatten, type Messages } from '../../src/i18n/catalogue.ts';
import type { Lang } from '../../src/i18n/lang.ts';

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

/**
 * The English words of the areas' catalogues found in a page or message in another language: each
 * English message's literal runs (the text between its placeholders, plurals and selects left
 * out) of two words or more whose message the language words differently. Empty when nothing
 * English is left; `allowed`: runs that are the same in every language (brand names).
 */
export function englishLeft(htmlOrText: string, lang: Lang, areas: readonly string[], allowed: readonly string[] = []): string[] {
  if (lang === 'en') return [];
  const text = visibleText(htmlOrText);
  const left = new Set<string>();
  for (const area of areas) {
    const en = catalogue(area, 'en');
    const own = catalogue(area, lang);
    for (const [key, message] of en) {
      if (own.get(key) === message || /,\s*(plural|select)\s*,/.test(message)) continue;
      for (const run of message.split(/\{[^{}]*\}/)) {
        const words = run.replace(/[\s\u00a0]+/g, ' ').trim();
        if (words.split(' ').length >= 2 && !allowed.includes(words) && text.includes(words)) left.add(`${area}.${key}: ${words}`);
      }
    }
  }
  return [...left];
}
