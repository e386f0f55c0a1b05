/** bench:scale's small helpers: SQL identifiers, rounding, labels, percentiles, URLs and /proc readings. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { settings } from './settings.ts';

export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;

export function fmtLevel(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 100 === 0) return `${n / 1_000}k`;
  return String(n);
}

export function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The URL with PostgreSQL's statement_timeout (BENCH_SCALE_STATEMENT_TIMEOUT) for every connection made with it. */
export function withStatementTimeout(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c statement_timeout=${settings.statementSeconds * 1000}`);
  return u.toString();
}

/** Resident set size of a process, in MB, from /proc (Linux). */
export function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The machine's busy share (all cores) between two readings of {@link machineBusyMs}, in %. */
export function busyPercent(b0: number | undefined, b1: number | undefined, wallMs: number): number | undefined {
  if (b0 === undefined || b1 === undefined || wallMs <= 0) return undefined;
  return round1(((b1 - b0) / wallMs / availableParallelism()) * 100);
}
