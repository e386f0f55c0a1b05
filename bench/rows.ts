/**
 * Target rows measured by the longer benchmarks (delivery, memory, start), kept in
 * bench/results/rows-<name>.json so that `npm run bench` lists every row of
 * docs/performance.md with its verdict and the date it was measured, beside the HTTP rows it
 * measures itself.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './children.ts';

export interface Row {
  row: string;
  target: string;
  measured: string;
  verdict: 'MET' | 'NOT MET' | 'NOT MEASURED';
}

const file = (name: string) => join(ROOT, 'bench/results', `rows-${name}.json`);

export function saveRows(name: string, rows: Row[]): void {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(file(name), JSON.stringify({ date: new Date().toISOString(), rows }, null, 2) + '\n');
}

/** The rows a benchmark saved, with when; undefined when it has not run here. */
export function loadRows(name: string): { date: string; rows: Row[] } | undefined {
  try {
    return JSON.parse(readFileSync(file(name), 'utf8')) as { date: string; rows: Row[] };
  } catch {
    return undefined;
  }
}
