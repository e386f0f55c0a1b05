/**
 * The burst of a bench:delivery run: the receiver's arrivals matched to the commits, the
 * producers started (and the quiet merchant's), then the wait for every delivery, bounded; CPU
 * read before and after.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { CommitNotifier } from '../../src/db/notifier.ts';
import { notifyThrough } from '../../src/db/postgres.ts';
import { cpuTimeMs, machineBusyMs } from '../children.ts';
import { postgresCpu } from './figures.ts';
import { held, otherClients, producerClients } from './lifecycle.ts';
import { type Committed, produceApi, produceQuiet, produceSql } from './producers.ts';
import type { Setup } from './setup.ts';
import { log, now, settings, sleep } from './settings.ts';

export async function runBurst(setup: Setup) {
  const { receiver, databaseUrl, quiet, quietPurchases, child, accountId, purchases, url, token } = setup;
  const commits = new Map<string, Committed>();
  const firstArrival = new Map<string, number>();
  /** Read when the figures are made: late duplicates count until then. */
  const counts = { duplicates: 0 };
  let allIn: (() => void) | undefined;
  const allArrived = new Promise<void>((ok) => (allIn = ok));
  receiver.onArrival = () => {
    const a = receiver.arrivals[receiver.arrivals.length - 1];
    if (!a) return;
    if (firstArrival.has(a.key)) counts.duplicates++;
    else firstArrival.set(a.key, a.at);
    if (firstArrival.size >= settings.events) allIn?.();
  };
  if (settings.producer === 'sql') {
    for (let i = 1; i < settings.producers; i++) {
      const c = new pg.Client({ connectionString: databaseUrl });
      producerClients.push(c);
      await c.connect();
    }
    const c = new pg.Client({ connectionString: databaseUrl });
    otherClients.push(c);
    await c.connect();
    held.notifier = new CommitNotifier(notifyThrough(c));
  }
  // BENCH_QUIET: the other merchant's events, from the burst's start until it has drained.
  const quietCommits = new Map<number, number>();
  let quietDone: Promise<void> = Promise.resolve();
  let endQuiet: (() => void) | undefined;
  if (quiet) {
    const c = new pg.Client({ connectionString: databaseUrl });
    otherClients.push(c);
    await c.connect();
    quietDone = produceQuiet(c, quiet.account_id.replace(/^acc_/, ''), quietPurchases, quietCommits, new Promise<void>((ok) => (endQuiet = ok)));
  }
  const cpu0 = { chipin: cpuTimeMs(child.proc.pid), bench: process.cpuUsage(), machine: machineBusyMs(), postgres: postgresCpu() };
  const burstStart = now();
  if (settings.producer === 'sql') await produceSql([held.sqlClient!, ...producerClients], accountId, purchases, commits);
  else await produceApi(url, token, purchases, commits);
  const burstEnd = now();
  log(`Burst committed in ${((burstEnd - burstStart) / 1000).toFixed(2)} s; waiting for the deliveries (at most ${settings.timeoutS} s)...`);

  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    allArrived.then(() => false),
    // Bounded: BENCH_TIMEOUT from the burst's start, and at least 30 s after a paced burst's last commit.
    new Promise<boolean>((ok) => (timer = setTimeout(() => ok(true), Math.max(0, Math.max(burstStart + settings.timeoutS * 1000, burstEnd + 30_000) - now())))),
    child.exited.then((code) => {
      throw new Error(`chipin exited (code ${code}) during the run:\n${child.stderrTail()}`);
    }),
  ]);
  clearTimeout(timer);
  endQuiet?.();
  await quietDone;
  const lastArrival = Math.max(...firstArrival.values());
  const elapsedS = (now() - burstStart) / 1000;
  const cpu1 = { chipin: cpuTimeMs(child.proc.pid), bench: process.cpuUsage(cpu0.bench), machine: machineBusyMs(), postgres: postgresCpu(), at: now() };
  await sleep(1_000); // late duplicates would show now
  const loadAvgAtEnd = loadavg().map((n) => Math.round(n * 100) / 100);
  return { commits, firstArrival, counts, quietCommits, cpu0, cpu1, burstStart, burstEnd, timedOut, lastArrival, elapsedS, loadAvgAtEnd };
}
