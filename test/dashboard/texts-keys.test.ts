import { describe, expect, it } from 'vitest';
import { DASHBOARD_TEXT } from '../../src/http/backoffice/texts.ts';

/**
 * The back office's texts are joined from one part per page (src/http/backoffice/pages/*-texts.ts, the
 * words several pages share in src/http/backoffice/texts.ts). Each French part is typed as its English
 * one, so tsc proves every key exists in both; this walk proves it again on the joined values:
 * the same keys at every level, the same kind of value (a text, a function that words one, a
 * list, a group of them), and no empty text.
 */
/**
 * Groups that hold a text only where the page's language differs from a wording kept outside the
 * texts (a connector's credential `format`, in English, in its definition): their keys differ by
 * design, their texts are still never empty.
 */
const ONLY_WHERE_DIFFERENT = new Set(['DASHBOARD_TEXT.credentialFormats']);

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
  if (ONLY_WHERE_DIFFERENT.has(path)) {
    for (const [key, value] of [...Object.entries(enGroup), ...Object.entries(frGroup)]) if (typeof value !== 'string' || value === '') found.push(`${path}.${key}: not a text`);
    return found;
  }
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
