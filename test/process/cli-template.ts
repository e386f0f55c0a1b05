import { cpSync } from 'node:fs';
import { beforeAll, expect } from 'vitest';
import { cliEnv, onPostgres, PROCESS_TEST_MS, runCli, tempDataDir, type Result } from './harness.ts';

/**
 * The migrated DATA_DIR the CLI's test files (cli.test.ts, cli-checks.test.ts) copy for each
 * describe. Initialising an empty embedded database costs a few seconds of CPU, so `migrate` runs
 * once per file on an empty DATA_DIR, and tests that only need a migrated, empty database get their
 * own copy of it in a fresh temp dir. Registers the `beforeAll` that makes it: call at a file's top.
 */
export function cliTemplate(): { fresh: () => string; firstMigrate: () => Result; dir: () => string } {
  let templateDir: string;
  let firstMigrate: Result;
  beforeAll(async () => {
    // Empty on PGlite, for `migrate` to apply every migration; on PostgreSQL with the suite's master.key,
    // which the shared database keeps the check value of (harness.ts).
    templateDir = tempDataDir({ empty: !onPostgres });
    firstMigrate = await runCli(['migrate'], cliEnv(templateDir));
  }, PROCESS_TEST_MS);
  return {
    fresh() {
      expect(firstMigrate.code, firstMigrate.stderr).toBe(0);
      const dir = tempDataDir({ empty: true });
      cpSync(templateDir, dir, { recursive: true });
      return dir;
    },
    firstMigrate: () => firstMigrate,
    dir: () => templateDir,
  };
}

/** The whole of stderr is one line ending in a newline. */
export function expectOneLine(text: string): void {
  expect(text.endsWith('\n'), JSON.stringify(text)).toBe(true);
  expect(text.trimEnd().split('\n'), JSON.stringify(text)).toHaveLength(1);
}
