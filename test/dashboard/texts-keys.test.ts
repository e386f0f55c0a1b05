import { describe, expect, it } from 'vitest';
import { DASHBOARD_TEXT } from '../../src/http/backoffice/texts.ts';
import type { Messages } from '../../src/i18n/catalogue.ts';
import en from '../../src/i18n/catalogues/backoffice/en.json' with { type: 'json' };

/**
 * The back office's words are in its catalogue (src/i18n/catalogues/backoffice/, checked key by key
 * in test/unit/i18n.test.ts); src/http/backoffice/texts.ts is the pages' typed view of it, the
 * messages that take values given as functions. This walk proves the view whole in both languages:
 * the same keys at every level, the same kind of value (a text, a function that words one, a
 * list, a group of them), no empty text, and nothing left undefined (a message that takes values
 * the view forgot to give as a function).
 */
type Kind = 'string' | 'function' | 'array' | 'object' | 'other';

function kindOf(value: unknown): Kind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'function') return 'function';
  if (Array.isArray(value)) return 'array';
  if (value !== null && typeof value === 'object') return 'object';
  return 'other';
}

/** Every difference between the English and the French tree, and every empty or odd value, by its path. */
function differences(en: unknown, fr: unknown, path: string): string[] {
  const kind = kindOf(en);
  if (kind !== kindOf(fr)) return [`${path}: ${kind} in English, ${kindOf(fr)} in French`];
  if (kind === 'other') return [`${path}: neither a text, a function nor a group`];
  if (kind === 'string') return en === '' || fr === '' ? [`${path}: empty text`] : [];
  if (kind === 'function') return [];
  const enGroup = en as Record<string, unknown>;
  const frGroup = fr as Record<string, unknown>;
  const found: string[] = [];
  for (const key of Object.keys(enGroup)) if (!(key in frGroup)) found.push(`${path}.${key}: missing in French`);
  for (const key of Object.keys(frGroup)) if (!(key in enGroup)) found.push(`${path}.${key}: missing in English`);
  for (const key of Object.keys(enGroup)) if (key in frGroup) found.push(...differences(enGroup[key], frGroup[key], `${path}.${key}`));
  return found;
}

describe('the back office texts', () => {
  it('have the same keys, with the same kinds of values, in English and French, and no empty text', () => {
    expect(differences(DASHBOARD_TEXT.en, DASHBOARD_TEXT.fr, 'DASHBOARD_TEXT')).toEqual([]);
  });

  it('are many (the walk read the joined texts, not an empty object)', () => {
    expect(Object.keys(DASHBOARD_TEXT.en).length).toBeGreaterThan(300);
    expect(Object.keys(DASHBOARD_TEXT.fr)).toEqual(Object.keys(DASHBOARD_TEXT.en));
  });
});

describe('the back office view of its catalogue', () => {
  it('gives every message of the catalogue: as a text, or through a function (or a list) on its path', () => {
    const missing: string[] = [];
    const walk = (messages: Messages, view: unknown, path: string) => {
      for (const [name, value] of Object.entries(messages)) {
        const node = (view as Record<string, unknown>)[name];
        if (node === undefined) missing.push(`${path}${name}`);
        else if (typeof value !== 'string' && typeof node !== 'function' && !Array.isArray(node)) walk(value, node, `${path}${name}.`);
      }
    };
    walk(en, DASHBOARD_TEXT.en, '');
    walk(en, DASHBOARD_TEXT.fr, '');
    expect(missing).toEqual([]);
  });
});
