/**
 * docs/architecture.md lists every module of src/ (each folder directly under it, and the files
 * beside them) and every file of src/use-cases/ (by capability folder, with the folders each may call), one line each. This test reads the tree and the
 * two tables, and fails when a folder, file or use case is missing from the doc, or the doc names
 * one that does not exist, so the map a newcomer reads first cannot drift from the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const DOC = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');

/** The rows of the first table under `## <heading>`: first cell (backticks removed) → second cell. */
function tableRows(heading: string): Map<string, string> {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "## ${heading}" section`);
  const next = DOC.indexOf('\n## ', start + 1);
  const section = DOC.slice(start, next < 0 ? undefined : next);
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (!cells) continue;
    const name = cells[1]!;
    if (rows.has(name)) throw new Error(`docs/architecture.md lists ${name} twice under "## ${heading}"`);
    rows.set(name, cells[2]!.trim());
  }
  return rows;
}

/** What the doc lacks and what it names in vain, so a failure says which line to add or remove. */
function difference(documented: Iterable<string>, actual: Iterable<string>): { missingFromDoc: string[]; notInTree: string[] } {
  const doc = new Set(documented);
  const tree = new Set(actual);
  return {
    missingFromDoc: [...tree].filter((n) => !doc.has(n)).sort(),
    notInTree: [...doc].filter((n) => !tree.has(n)).sort(),
  };
}

const entries = (dir: string) => readdirSync(new URL(dir, ROOT), { withFileTypes: true });
const NONE = { missingFromDoc: [], notInTree: [] };

describe('docs/architecture.md against the tree', () => {
  it('lists every folder directly under src/, and no folder that is not there', () => {
    const folders = entries('src/')
      .filter((e) => e.isDirectory())
      .map((e) => `${e.name}/`);
    expect(folders.length).toBeGreaterThan(0);
    expect(
      difference(
        [...tableRows('Modules').keys()].filter((n) => n.endsWith('/')),
        folders,
      ),
    ).toEqual(NONE);
  });

  it('lists every file directly under src/ (the entry points), and no file that is not there', () => {
    const files = entries('src/')
      .filter((e) => e.isFile())
      .map((e) => e.name);
    expect(
      difference(
        [...tableRows('Modules').keys()].filter((n) => !n.endsWith('/')),
        files,
      ),
    ).toEqual(NONE);
  });

  it('lists every file of src/use-cases/ by its capability folder, and no use case that is not there', () => {
    const files = entries('src/use-cases/').flatMap((e) =>
      e.isDirectory()
        ? entries(`src/use-cases/${e.name}/`)
            .filter((f) => f.isFile() && f.name.endsWith('.ts'))
            .map((f) => `${e.name}/${f.name}`)
        : e.name.endsWith('.ts')
          ? [e.name]
          : [],
    );
    expect(files.length).toBeGreaterThan(0);
    expect(
      difference(
        [...tableRows('Use cases').keys()].filter((n) => !n.endsWith('/')),
        files,
      ),
    ).toEqual(NONE);
  });

  it('names each capability folder with the folders lint lets it call (USE_CASE_FOLDERS), and no other', async () => {
    const { USE_CASE_FOLDERS } = (await import(new URL('.dependency-cruiser.mjs', ROOT).href)) as { USE_CASE_FOLDERS: Record<string, string[]> };
    const folders = entries('src/use-cases/')
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(Object.keys(USE_CASE_FOLDERS).sort()).toEqual(folders.sort());
    const documented = [...tableRows('Use cases')].filter(([name]) => name.endsWith('/'));
    const calls = (cell: string) => [...cell.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]!).sort();
    expect(Object.fromEntries(documented.map(([name, row]) => [name.slice(0, -1), calls(row.split('|').at(-1)!)]))).toEqual(
      Object.fromEntries(Object.entries(USE_CASE_FOLDERS).map(([folder, allowed]) => [folder, [...allowed].sort()])),
    );
  });

  it('says in a line what each module and use case holds', () => {
    const blank = [...tableRows('Modules'), ...tableRows('Use cases')].filter(([, what]) => what.length < 10).map(([name]) => name);
    expect(blank).toEqual([]);
  });
});
