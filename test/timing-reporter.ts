import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { fileTimes } from './budget-reporter.ts';
import { mergeFileTimes, readFileTimes, writeFileTimes, type FileTimes } from './slowest-first.ts';

/**
 * Where the suite's time goes (`npm run test:timing`, docs/testing.md): per file, the time to
 * import it and its helpers and the time its tests and hooks took; per kind of setup (database
 * opened, app started, browser connected...), how many and how long in all, from the spans
 * test/helpers/timing.ts writes. Printed after the run, longest first. Each file's time goes into
 * test/file-times.json, the order of the next runs (test/slowest-first.ts).
 */
export default class TimingReporter implements Reporter {
  readonly #dir = mkdtempSync(join(tmpdir(), 'chipin-timing-'));
  readonly #spans = join(this.#dir, 'spans.jsonl');
  #started = 0;

  constructor() {
    // Set before the workers start: they inherit it.
    process.env.CHIPIN_TEST_TIMING = this.#spans;
  }

  onTestRunStart(): void {
    this.#started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const wall = performance.now() - this.#started;
    const measured: FileTimes = {};
    const rows = modules.map((m) => {
      const path = relative(process.cwd(), m.moduleId);
      const times = fileTimes(m);
      (measured[m.project.name] ??= {})[path] = Math.round((times.import + times.tests) / 100) / 10;
      return { file: `${path} [${m.project.name}]`, ...times, count: [...m.children.allTests()].length };
    });
    rows.sort((a, b) => b.import + b.tests - (a.import + a.tests));
    writeFileTimes(mergeFileTimes(readFileTimes(), measured, existsSync));
    const out: string[] = [];
    const s = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
    out.push(`\n== timing: ${rows.length} files, ${rows.reduce((n, r) => n + r.count, 0)} tests, ${s(wall)} s wall`);
    out.push(`   summed over files: import ${s(rows.reduce((n, r) => n + r.import, 0))} s, tests and hooks ${s(rows.reduce((n, r) => n + r.tests, 0))} s`);
    out.push('\n   total  import   tests  count  file');
    for (const r of rows) out.push(`${s(r.import + r.tests)} ${s(r.import)} ${s(r.tests)} ${String(r.count).padStart(6)}  ${r.file}`);

    const kinds = new Map<string, { n: number; ms: number }>();
    let text = '';
    try {
      text = readFileSync(this.#spans, 'utf8');
    } catch {
      // No span written: no test opened a database.
    }
    for (const line of text.split('\n').filter(Boolean)) {
      const { kind, ms, db } = JSON.parse(line) as { kind: string; ms: number; db: string };
      const key = `${kind} (${db})`;
      const k = kinds.get(key) ?? { n: 0, ms: 0 };
      k.n++;
      k.ms += ms;
      kinds.set(key, k);
    }
    out.push('\n   setup            count   total s   mean ms');
    for (const [kind, k] of [...kinds].sort((a, b) => b[1].ms - a[1].ms)) {
      out.push(`   ${kind.padEnd(28)} ${String(k.n).padStart(5)} ${s(k.ms)}   ${(k.ms / k.n).toFixed(0).padStart(7)}`);
    }
    process.stdout.write(out.join('\n') + '\n');
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
