/**
 * The rules every request's input meets before any handler (and so any database call) sees it,
 * whatever the route: docs/api-conventions.md, "Text, depth and size".
 *
 * - Text: no NUL (U+0000) and no unpaired UTF-16 surrogate, in any string or object key of the
 *   body, the query string and the path parameters. PostgreSQL stores neither (it refuses 0x00 in
 *   `text` and an unpaired surrogate in `jsonb`), and no legitimate input needs them: refusing
 *   them (400/406 naming the field) is the one rule, rather than replacing them in some places.
 * - JSON bodies: at most MAX_JSON_DEPTH levels of nesting, checked on the raw text before it is
 *   parsed, so no recursive code (validation, canonical hashing, serialisation) meets a deep value.
 */

/** Nesting levels of arrays and objects a JSON body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a text, if anything. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\0')) return 'contains a NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'contains an unpaired UTF-16 surrogate (not valid Unicode text)';
  return undefined;
}

/** `data.metadata.x`, `items[2].name`: the path of a field as error messages name it. */
function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * The first string or object key in `value` that breaks the text rule, with its path, or
 * undefined. Iterative: the depth of `value` is bounded elsewhere, but this must not depend on it.
 */
export function findBadText(value: unknown): { field: string; problem: string } | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { field: path, problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], join(path, i)]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        const keyProblem = textProblem(k);
        if (keyProblem) return { field: join(path, JSON.stringify(k).slice(1, -1)), problem: `has a name that ${keyProblem}` };
        stack.push([child, join(path, k)]);
      }
    }
  }
  return undefined;
}

/** Whether a JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
