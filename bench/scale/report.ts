/**
 * bench:scale's report: the table comparing each level with the first, with a verdict per row
 * (docs/performance.md#data-growth), and what the JSON states beside the figures: the machine,
 * PostgreSQL's settings, the figures of an earlier run on the same database.
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { fmtLevel, fmtMs, round1 } from './format.ts';
import { table } from '../table.ts';
import { type LevelResult, ROWS } from './level.ts';
import { EXPORT_RSS_SLACK_MB, EXPORT_TARGET_ROWS_PER_S, HOME_TARGET_MS, RESULTS_FILE, TARGET_RATIO } from './settings.ts';

interface Verdict {
  row: string;
  target: string;
  verdict: string;
}

export function report(levels: LevelResult[]): { text: string; verdicts: Verdict[] } {
  const first = levels[0]!;
  const label = (l: LevelResult) => `${fmtLevel(l.level)}${l.fromEarlierRun ? '*' : ''}`;
  const header = ['row'];
  for (const [i, l] of levels.entries()) {
    header.push(`${label(l)} p50 / p99 ms`);
    if (i > 0) header.push(`${fmtLevel(l.level)}/${fmtLevel(first.level)} p50 (p99)`);
  }
  header.push('target', 'verdict');
  const out: string[][] = [header];
  const verdicts: Verdict[] = [];
  const judge = (name: string, target: string, fails: string[], measuredAbove: boolean) => {
    const verdict = fails.length ? `NOT MET (${fails.join(', ')})` : measuredAbove ? 'MET' : 'n/a (one level)';
    verdicts.push({ row: name, target, verdict });
    return verdict;
  };

  for (const r of ROWS) {
    const cells = [r.label];
    const fails: string[] = [];
    for (const [i, l] of levels.entries()) {
      const m = l.rows[r.key];
      cells.push(m ? `${fmtMs(m.p50)} / ${fmtMs(m.p99)}` : '-');
      if (m?.errors) fails.push(`${m.errors} errors at ${fmtLevel(l.level)}`);
      if (i === 0) {
        if (r.kind === 'home' && m && m.p50 > HOME_TARGET_MS) fails.push(`${fmtLevel(l.level)}: ${fmtMs(m.p50)} ms`);
        continue;
      }
      const b = first.rows[r.key];
      if (!m || !b) {
        cells.push('-');
        continue;
      }
      const ratio = m.p50 / b.p50;
      cells.push(`${ratio.toFixed(2)} × (${(m.p99 / b.p99).toFixed(2)} ×)`);
      if (r.kind === 'home') {
        if (m.p50 > HOME_TARGET_MS) fails.push(`${fmtLevel(l.level)}: ${fmtMs(m.p50)} ms`);
      } else if (ratio > TARGET_RATIO) fails.push(`${ratio.toFixed(2)} × at ${fmtLevel(l.level)}`);
    }
    const target = r.kind === 'home' ? `p50 ≤ ${HOME_TARGET_MS} ms` : `p50 ≤ ${TARGET_RATIO} × ${fmtLevel(first.level)}`;
    cells.push(target, judge(r.label, target, fails, levels.length > 1));
    out.push(cells);
  }

  // The export: rows per second, and memory while it streams (its peak RSS over the RSS before it).
  {
    const cells = ['CSV export, big merchant (rows/s; RSS before → peak)'];
    const fails: string[] = [];
    for (const [i, l] of levels.entries()) {
      const e = l.export;
      const grew = e.rssPeakMb !== undefined && e.rssBeforeMb !== undefined ? round1(e.rssPeakMb - e.rssBeforeMb) : undefined;
      cells.push(`${e.rowsPerSecond.toLocaleString('en')}/s; ${e.rssBeforeMb ?? '-'} → ${e.rssPeakMb ?? '-'} MB${e.error ? ' (stopped)' : ''}`);
      if (e.error) fails.push(`stopped at ${fmtLevel(l.level)}: ${e.error}`);
      if (grew !== undefined && grew > EXPORT_RSS_SLACK_MB) fails.push(`RSS +${grew} MB at ${fmtLevel(l.level)}`);
      if (i === 0) continue;
      cells.push(`${e.rows.toLocaleString('en')} rows in ${e.seconds} s`);
      if (e.rowsPerSecond < EXPORT_TARGET_ROWS_PER_S) fails.push(`${e.rowsPerSecond.toLocaleString('en')} rows/s at ${fmtLevel(l.level)}`);
    }
    const target = `≥ ${EXPORT_TARGET_ROWS_PER_S / 1000}k rows/s; RSS peak ≤ before + ${EXPORT_RSS_SLACK_MB} MB`;
    cells.push(target, judge('CSV export', target, fails, levels.length > 1));
    out.push(cells);
  }
  // Start time: reported, no target.
  {
    const cells = ['start: spawn to /readyz 200 (median, ms)'];
    for (const [i, l] of levels.entries()) {
      cells.push(String(l.startMedianMs));
      if (i > 0) cells.push(`${(l.startMedianMs / first.startMedianMs).toFixed(2)} ×`);
    }
    cells.push('reported', '-');
    verdicts.push({ row: 'start', target: 'reported', verdict: '-' });
    out.push(cells);
  }
  return { text: table(out), verdicts };
}

export function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    /* not Linux */
  }
  return { cpus: availableParallelism(), cpuModel, memTotalGiB: round1(totalmem() / 2 ** 30), node: process.version };
}

/**
 * The server's settings the figures depend on most: with a database larger than
 * `shared_buffers`, a row's pages come from the host's page cache or the disk
 * (docs/performance.md#data-growth), so a run states what it had.
 */
export async function postgresSettings(db: pg.Pool): Promise<Record<'server_version' | 'shared_buffers' | 'effective_cache_size' | 'work_mem', string>> {
  const { rows } = await db.query<{ name: string; setting: string }>(
    "SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name IN ('server_version', 'shared_buffers', 'effective_cache_size', 'work_mem')",
  );
  const of = (name: string) => rows.find((r) => r.name === name)?.setting ?? 'unknown';
  return { server_version: of('server_version'), shared_buffers: of('shared_buffers'), effective_cache_size: of('effective_cache_size'), work_mem: of('work_mem') };
}

export function earlierResults(name: string): LevelResult[] {
  try {
    const old = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as { database?: string; levels?: LevelResult[] };
    return old.database === name ? (old.levels ?? []) : [];
  } catch {
    return [];
  }
}
