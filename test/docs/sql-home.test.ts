/**
 * SQL has one home (docs/architecture.md, "Layers"): the repositories, `<aggregate>-repository.ts`,
 * and db/. This test reads src/ and fails when a statement is run anywhere else, so a use case,
 * route, page or job that starts writing SQL again is caught in review's stead.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url);

/** Where SQL still runs outside a repository, each with why; a listed file that no longer runs any fails the test, so the list only shrinks. */
const NOT_YET_MOVED = new Map([
  ['psp/registry.ts', 'two reads of offers and PSP accounts; psp/ is reworked by the stateless-connector change'],
  ['psp/sandbox/store.ts', "the sandbox PSP's own tables (its repository under the old name), same reason"],
]);

/** A call of `query` on anything: `sql.query(`, `tx.query<Row>(`, `this.#db\n.query(`. */
const RUNS_SQL = /\.query\s*(<[^>()]*(\([^)]*\)[^>()]*)*>)?\s*\(/;

function sourceFiles(dir: URL, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`) : e.name.endsWith('.ts') ? [`${prefix}${e.name}`] : [],
  );
}

const runningSql = sourceFiles(SRC).filter((f) => RUNS_SQL.test(readFileSync(new URL(f, SRC), 'utf8')));

describe('SQL outside repositories and db/', () => {
  it('runs in no other file of src/', () => {
    const outside = runningSql.filter((f) => !f.startsWith('db/') && !f.endsWith('-repository.ts') && !NOT_YET_MOVED.has(f));
    expect(outside).toEqual([]);
  });

  it('still runs in every file listed as not yet moved (remove a file from the list once moved)', () => {
    expect([...NOT_YET_MOVED.keys()].filter((f) => !runningSql.includes(f))).toEqual([]);
  });
});
