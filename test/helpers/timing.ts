import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect } from 'vitest';

/**
 * Setup spans for the timing report (`npm run test:timing`, test/timing-reporter.ts): when
 * CHIPIN_TEST_TIMING names a file, each span is appended to it as a JSON line. Otherwise free.
 */
const sink = process.env.CHIPIN_TEST_TIMING;

export async function timed<T>(kind: string, fn: () => Promise<T>): Promise<T> {
  if (!sink) return fn();
  const started = performance.now();
  try {
    return await fn();
  } finally {
    const ms = performance.now() - started;
    const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
    appendFileSync(sink, JSON.stringify({ kind, ms, file, db: process.env.DATABASE_URL ? 'postgres' : 'pglite' }) + '\n');
  }
}
