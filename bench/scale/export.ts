/** The big merchant's CSV export, read as it streams, with the server's RSS sampled meanwhile. */
import { machineBusyMs } from '../children.ts';
import { busyPercent, round1, round2, rssMb } from './format.ts';
import { checkInterrupted, isInterrupted } from './lifecycle.ts';
import { settings } from './settings.ts';

export interface ExportResult {
  rows: number;
  expectedRows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMb?: number;
  rssPeakMb?: number;
  rssAfterMb?: number;
  status: number;
  /** Why the export stopped short (its budget, a statement timeout ...). */
  error?: string;
  machineBusyPercent?: number;
}

/**
 * The whole CSV export, read as it streams (lines counted, nothing kept), with the server's RSS
 * sampled every 50 ms; at most BENCH_SCALE_EXPORT_SECONDS.
 */
export async function measureExport(base: string, cookie: string, pid: number | undefined, expectedRows: number): Promise<ExportResult> {
  const rssBeforeMb = rssMb(pid);
  let peak = rssBeforeMb ?? 0;
  const timer = setInterval(() => {
    const r = rssMb(pid);
    if (r !== undefined && r > peak) peak = r;
  }, 50);
  const b0 = machineBusyMs();
  const t0 = performance.now();
  let newlines = 0;
  let bytes = 0;
  let status = 0;
  let error: string | undefined;
  try {
    const res = await fetch(`${base}/dashboard/purchases.csv`, { headers: { cookie }, signal: AbortSignal.timeout(settings.exportSeconds * 1000) });
    status = res.status;
    const reader = res.body!.getReader();
    for (;;) {
      checkInterrupted();
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) newlines++;
    }
  } catch (err) {
    if (isInterrupted()) throw err;
    error = (err as Error).message;
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  const rows = Math.max(0, newlines - 1);
  if (!error && status !== 200) error = `HTTP ${status}`;
  if (!error && rows !== expectedRows) error = `${rows} rows for ${expectedRows} purchases (cut short)`;
  return {
    rows,
    expectedRows,
    bytes,
    seconds: round2(ms / 1000),
    rowsPerSecond: Math.round(rows / (ms / 1000)),
    ...(rssBeforeMb === undefined ? {} : { rssBeforeMb: round1(rssBeforeMb), rssPeakMb: round1(peak), rssAfterMb: round1(rssMb(pid) ?? NaN) }),
    status,
    ...(error ? { error } : {}),
    machineBusyPercent: busyPercent(b0, machineBusyMs(), ms),
  };
}
