import type { Reporter, TestModule } from 'vitest/node';

/**
 * One plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary:
 * the form CI tooling reads, whatever the runner.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
      // A file that failed to load has no tests to count: it is a failure all the same.
      if (module.state() === 'failed' && !module.children.allTests().next().value) count.failed++;
    }
    process.stdout.write(`\ntests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
