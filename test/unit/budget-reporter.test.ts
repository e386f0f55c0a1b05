/**
 * The suite's per-file budget (test/budget-reporter.ts, docs/testing.md#the-budget): a PGlite file
 * over the bound fails the run and is named; files of other projects and files within it do not.
 * And the order the files run in (test/slowest-first.ts, docs/testing.md#the-order-of-files).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule, TestSpecification, Vitest } from 'vitest/node';
import BudgetReporter from '../budget-reporter.ts';
import SlowestFirst, { mergeFileTimes, type FileTimes } from '../slowest-first.ts';

function file(name: string, project: string, importMs: number, testsMs: number): TestModule {
  const diagnostic = { collectDuration: importMs, setupDuration: 0, prepareDuration: 0, environmentSetupDuration: 0, duration: testsMs };
  return { moduleId: `${process.cwd()}/test/${name}`, project: { name: project }, diagnostic: () => diagnostic } as unknown as TestModule;
}

/** The reporter of a run as `npm test` makes it, whatever this run is (`npm run test:full` too), unless `full`. */
function run(modules: TestModule[], budgetS?: string, full = false): { exitCode: typeof process.exitCode; printed: string } {
  const saved = process.exitCode;
  const printed: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => (printed.push(String(text)), true));
  // The bound as given here, whatever the run's own (.ci/run sets one).
  vi.stubEnv('CHIPIN_TEST_FILE_BUDGET_S', budgetS);
  try {
    new BudgetReporter({ full }).onTestRunEnd(modules);
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

  it('does not hold the full run (npm run test:full) to it, and still prints its slowest files', () => {
    const { exitCode, printed } = run([file('slow.test.ts', 'pglite', 1_000, 189_500)], undefined, true);
    expect(exitCode).toBeUndefined();
    expect(printed).toContain('test/slow.test.ts');
    expect(printed).not.toContain('budget:');
  });
});

describe('the order of files (test/slowest-first.ts)', () => {
  const spec = (project: string, path: string) => ({ project: { name: project }, moduleId: `/repo/${path}` }) as unknown as TestSpecification;
  const names = (specs: TestSpecification[]) => specs.map((s) => `${s.project.name}:${s.moduleId.slice('/repo/'.length)}`);

  it('runs project after project, and within one the files it does not know first, then the slowest', async () => {
    const times: FileTimes = { pglite: { 'a.test.ts': 5, 'b.test.ts': 80, 'c.test.ts': 20 }, postgres: { 'a.test.ts': 90, 'b.test.ts': 1 } };
    const sequencer = new SlowestFirst({ config: { root: '/repo' } } as unknown as Vitest, () => times);
    const order = await sequencer.sort([
      spec('postgres', 'b.test.ts'),
      spec('pglite', 'a.test.ts'),
      spec('postgres', 'a.test.ts'),
      spec('pglite', 'new.test.ts'),
      spec('pglite', 'c.test.ts'),
      spec('browser', 'page.test.ts'),
      spec('pglite', 'b.test.ts'),
    ]);
    expect(names(order)).toEqual([
      'browser:page.test.ts',
      'pglite:new.test.ts',
      'pglite:b.test.ts',
      'pglite:c.test.ts',
      'pglite:a.test.ts',
      'postgres:a.test.ts',
      'postgres:b.test.ts',
    ]);
  });

  it("keeps the files a run did not measure, takes this run's times, and drops the files that are gone", () => {
    const before: FileTimes = { pglite: { 'kept.test.ts': 3, 'measured.test.ts': 50, 'gone.test.ts': 9 } };
    const merged = mergeFileTimes(before, { pglite: { 'measured.test.ts': 12.5 }, postgres: { 'measured.test.ts': 20 } }, (file) => file !== 'gone.test.ts');
    expect(merged).toEqual({ pglite: { 'kept.test.ts': 3, 'measured.test.ts': 12.5 }, postgres: { 'measured.test.ts': 20 } });
  });
});
