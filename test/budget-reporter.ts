import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { FULL_RUN } from './helpers/full-run.ts';

/** A file's wall time in the run: importing it and its helpers, then its tests and hooks. */
export function fileTimes(m: TestModule): { import: number; tests: number } {
  const d = m.diagnostic();
  return { import: d.collectDuration + d.setupDuration + d.prepareDuration + d.environmentSetupDuration, tests: d.duration };
}

/**
 * The suite's per-file budget (docs/testing.md#the-budget): a file of the `pglite` project whose
 * wall time passes CHIPIN_TEST_FILE_BUDGET_S (90 s) fails the run, named with its time, so that a
 * slow file is seen when it lands. The embedded database's project is the one every file runs in;
 * `npm run test:full` walks the whole matrices and is not held to it.
 */
export default class BudgetReporter implements Reporter {
  /** `full`: a full run's reporter (FULL_RUN when vitest makes it), given here by its own test. */
  constructor(private readonly options: { full: boolean } = { full: FULL_RUN }) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const budgetMs = Number(process.env.CHIPIN_TEST_FILE_BUDGET_S ?? 90) * 1000;
    const files = modules
      .filter((m) => m.project.name === 'pglite')
      .map((m) => {
        const times = fileTimes(m);
        return { file: relative(process.cwd(), m.moduleId), ms: times.import + times.tests };
      })
      .sort((a, b) => b.ms - a.ms);
    const line = (f: { file: string; ms: number }) => `  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.file}`;
    // The slowest files of every run, in CI's log too: the next one to pass the budget is seen coming.
    if (files.length > 0) process.stdout.write(`\nslowest files on PGlite (wall time):\n${files.slice(0, 10).map(line).join('\n')}\n`);
    if (this.options.full) return;
    const over = files.filter((f) => f.ms > budgetMs);
    if (over.length === 0) return;
    process.stdout.write(`\nbudget: ${over.length} file(s) on PGlite over ${budgetMs / 1000} s of wall time (docs/testing.md#the-budget):\n${over.map(line).join('\n')}\n`);
    process.exitCode = 1;
  }
}
