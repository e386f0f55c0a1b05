import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** File of a migrated PGlite data directory: every test database on PGlite starts from it. */
    pgliteSnapshot: string;
  }
}

/**
 * Global setup of the `pglite` project, once per run: migrate one embedded database and dump its
 * data directory; every test database loads that dump (0.5 s) instead of running initdb and the
 * migrations (2.5-3 s of CPU). docs/testing.md.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'chipin-snapshot-'));
  const file = join(dir, 'migrated.tar');
  const db = await openPglite(undefined);
  try {
    await migrate(db);
    writeFileSync(file, Buffer.from(await (await db.dump()).arrayBuffer()));
  } finally {
    await db.close();
  }
  project.provide('pgliteSnapshot', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
