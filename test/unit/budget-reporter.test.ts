/**
 * The suite's per-file budget (test/budget-reporter.ts, docs/testing.md#the-budget): a PGlite file
 * over the bound fails the run and is named; files of other projects and files within it do not.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import BudgetReporter from '../budget-reporter.ts';

function file(name: string, project: string, importMs: number, testsMs: number): TestModule {
  const diagnostic = { collectDuration: importMs, setupDuration: 0, prepareDuration: 0, environmentSetupDuration: 0, duration: testsMs };
  return { moduleId: `${process.cwd()}/test/${name}`, project: { name: project }, diagnostic: () => diagnostic } as unknown as TestModule;
}

function run(modules: TestModule[], budgetS?: string): { exitCode: typeof process.exitCode; printed: string } {
  const saved = process.exitCode;
  const printed: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => (printed.push(String(text)), true));
  // The bound as given here, whatever the run's own (.ci/run sets one).
  vi.stubEnv('CHIPIN_TEST_FILE_BUDGET_S', budgetS);
  try {
    new BudgetReporter().onTestRunEnd(modules);
    return { exitCode: process.exitCode, printed: printed.join('') };
  } finally {
    process.exitCode = saved;
  }
}

describe('the per-file budget', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('fails the run naming a PGlite file whose import and tests pass 90 s of wall time', () => {
    const { exitCode, printed } = run([file('slow.test.ts', 'pglite', 1_000, 89_500), file('fine.test.ts', 'pglite', 1_000, 80_000)]);
    expect(exitCode).toBe(1);
    expect(printed).toMatch(/budget: 1 file\(s\) on PGlite over 90 s[^\n]*\n\s+90\.5 s\s+test\/slow\.test\.ts\n$/);
  });

  it('leaves the run alone when every PGlite file is within it, whatever the other projects took', () => {
    const { exitCode, printed } = run([file('fine.test.ts', 'pglite', 500, 89_000), file('page.test.ts', 'browser', 0, 200_000), file('sql.test.ts', 'postgres', 0, 120_000)]);
    expect(exitCode).toBeUndefined();
    expect(printed).toContain('test/fine.test.ts');
    expect(printed).not.toContain('budget:');
  });

  it('takes another bound from CHIPIN_TEST_FILE_BUDGET_S', () => {
    expect(run([file('fine.test.ts', 'pglite', 0, 89_000)], '60').exitCode).toBe(1);
  });
});
