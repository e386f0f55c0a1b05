/**
 * The decisions the code relies on are written in docs/ and the code cites those: no file of the
 * repository's source, tests or docs may send a reader to the design document that sits outside
 * the repository (its `§N` sections or its file name). A new decision goes into the doc of its
 * topic, under a heading the code can cite (docs/architecture.md lists them by module).
 */
import { readdirSync, readFileSync } from 'node:fs';
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
});
