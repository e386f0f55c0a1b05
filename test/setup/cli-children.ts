import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundle `npm run build` wrote for this run: the process tests' children run it (test/process/harness.ts). */
    cliBundle: string;
    /** A migrated embedded database on disk (DATA_DIR/pg), copied into a child's DATA_DIR; '' on PostgreSQL. */
    pgliteDataDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Global setup of the projects that start the CLI as child processes, once per run
 * (docs/testing.md#process-tests):
 * - the bundle, built by `npm run build` into a file of this run's own: a child loads it in about
 *   0.5 s of CPU (its packages inside it, docs/deployment.md#the-bundle), against about 5 s for the
 *   sources through tsx, which transforms every module again in every child;
 * - on PGlite, one migrated data directory, which a child's DATA_DIR starts from instead of
 *   running initdb and every migration itself (several seconds of CPU a child).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // In dist/, one level below the root, as production's bundle: it finds its files from there (src/source-files.ts).
  const bundle = join(ROOT, 'dist', `test-run-${randomBytes(4).toString('hex')}.mjs`);
  execFileSync('npm', ['run', 'build', '--silent', '--', `--outfile=${bundle}`], { cwd: ROOT, stdio: 'pipe' });
  project.provide('cliBundle', bundle);

  let dataDir = '';
  if (project.name !== 'postgres') {
    dataDir = mkdtempSync(join(tmpdir(), 'chipin-migrated-'));
    const db = await openPglite(join(dataDir, 'pg'));
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  }
  project.provide('pgliteDataDir', dataDir);
  return () => {
    rmSync(bundle, { force: true });
    rmSync(`${bundle}.map`, { force: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
