/**
 * The decisions the code relies on are written in docs/ and the code cites those: no file of the
 * repository's source, tests or docs may send a reader to the design document that sits outside
 * the repository (its `§N` sections or its file name). A new decision goes into the doc of its
 * topic, under a heading the code can cite (docs/architecture.md lists them by module), and a
 * citation names a heading or anchor that is there: a heading renamed keeps its old name as an
 * `<a id>` when a landed migration cites it (those files are never edited).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const TEXT = /\.(ts|js|sql|md|json)$/;
// Spelt in two parts so that this file does not match itself.
const OUTSIDE = new RegExp(['DESIGN', String.raw`(\s*§|\.md)`].join(''), 'i');

function textFiles(dir: string): string[] {
  return readdirSync(new URL(dir, ROOT), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? textFiles(`${dir}${e.name}/`) : TEXT.test(e.name) ? [`${dir}${e.name}`] : []));
}

describe('citations', () => {
  it('no source, test or doc cites the design document outside the repository', () => {
    const files = [...textFiles('src/'), ...textFiles('test/'), ...textFiles('docs/'), 'README.md'];
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((path) =>
      readFileSync(new URL(path, ROOT), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('every docs/<file>.md#<anchor> that source, tests and benchmarks cite names a file there and a heading or anchor of it', () => {
    const files = [...textFiles('src/'), ...textFiles('test/'), ...textFiles('bench/')];
    const anchorsOf = new Map<string, Set<string>>();
    const anchors = (doc: string) => {
      let known = anchorsOf.get(doc);
      if (!known) {
        const text = readFileSync(new URL(doc, ROOT), 'utf8');
        const headings = text.replace(/```[\s\S]*?```/g, '').matchAll(/^#+\s+(.*)$/gm);
        known = new Set([...[...headings].map((h) => slug(h[1]!)), ...[...text.matchAll(/<a (?:id|name)="([^"]+)"/g)].map((a) => a[1]!)]);
        anchorsOf.set(doc, known);
      }
      return known;
    };
    const broken = files.flatMap((path) =>
      readFileSync(new URL(path, ROOT), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line.matchAll(/docs\/([\w\-/]+\.md)#([\w-]+)/g)].flatMap(([cited, doc, anchor]) =>
            existsSync(new URL(`docs/${doc}`, ROOT)) && anchors(`docs/${doc}`).has(anchor!) ? [] : [`${path}:${i + 1}: ${cited}`],
          ),
        ),
    );
    expect(broken).toEqual([]);
  });
});

/** A heading's anchor as GitHub makes it: lower case, code marks and punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}
