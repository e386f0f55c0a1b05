import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification, type Vitest } from 'vitest/node';

/**
 * Each file's wall time in the last timing run, in seconds, per project: written by
 * `npm run test:timing` (test/timing-reporter.ts) and committed, so that a fresh clone (CI), which
 * has no vitest cache, still starts the slowest files first (docs/testing.md#the-order-of-files).
 */
export const FILE_TIMES = new URL('./file-times.json', import.meta.url);

export type FileTimes = Record<string, Record<string, number>>;

export function readFileTimes(): FileTimes {
  return existsSync(FILE_TIMES) ? (JSON.parse(readFileSync(FILE_TIMES, 'utf8')) as FileTimes) : {};
}

/**
 * The table with this run's files measured anew, files of earlier runs kept (a run of a few files
 * must not forget the others), and files that no longer exist dropped.
 */
export function mergeFileTimes(before: FileTimes, measured: FileTimes, exists: (file: string) => boolean): FileTimes {
  const merged: FileTimes = {};
  for (const project of new Set([...Object.keys(before), ...Object.keys(measured)]).values()) {
    const files = { ...before[project], ...measured[project] };
    merged[project] = Object.fromEntries(
      Object.entries(files)
        .filter(([file]) => exists(file))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  }
  return merged;
}

export function writeFileTimes(times: FileTimes): void {
  writeFileSync(FILE_TIMES, JSON.stringify(times, null, 2) + '\n');
}

/**
 * Orders a run's files: projects one after another, as vitest does (a worker of one project runs
 * the next file only if it is of the same project, otherwise a new worker starts and imports
 * again), and within a project the slowest first by {@link FILE_TIMES}, a file it does not know
 * before all (it may be slow). With 4 workers, a long file that starts last holds the run's end
 * while the other workers sit idle; started first, it runs beside the short ones.
 */
export default class SlowestFirst extends BaseSequencer {
  readonly #times: () => FileTimes;

  constructor(ctx: Vitest, times: () => FileTimes = readFileTimes) {
    super(ctx);
    this.#times = times;
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const times = this.#times();
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification) => times[f.project.name]?.[relative(root, f.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const diff = seconds(b) - seconds(a);
      return Number.isNaN(diff) ? 0 : diff;
    });
  }
}
