/**
 * Delivery benchmark: latency from an event's commit to its webhook's arrival at a healthy
 * local receiver, and deliveries per second, for a burst of events.
 *
 *   npx tsx bench/delivery.ts
 *
 * With none of the run variables below set (BENCH_EVENTS, BENCH_RATE, BENCH_PURCHASES,
 * BENCH_BATCH, BENCH_PRODUCER, BENCH_EMBEDDED), it runs the two target rows
 * (docs/performance.md#delivery-rows), each in a fresh child run of this script, and prints them
 * with their targets and MET / NOT MET:
 *   - the producers' rate: 15,000 events, one per transaction, committed as fast as four
 *     connections can while Chipin delivers them: the highest rate this host's producers commit;
 *   - paced at that rate (at most 2,000/s, rounded down to 50) for 30 s: p50 < 50 ms,
 *     p99 < 500 ms commit → receiver, the commits kept the pace, none lost, none twice;
 *   - burst: 20,000 events (100 per transaction): drained at ≥ 2,000 deliveries/s, none lost,
 *     none twice.
 * BENCH_DATABASE_URL, BENCH_TIMEOUT and BENCH_SERVER_NODE_ARGS apply to both rows.
 *
 * What it does:
 *   1. runs Chipin as a child process (`node --import tsx src/main.ts serve`, LOG_LEVEL=warn,
 *      output to /dev/null) on PostgreSQL — a fresh database `chipin_bench_<ts>` made with
 *      `createdb` on postgres://postgres@127.0.0.1:5432 and dropped at the end, or
 *      BENCH_DATABASE_URL (kept) — or on the embedded database with BENCH_EMBEDDED=1;
 *   2. runs a receiver (node:http on 127.0.0.1, in this process) that answers 200 at once and
 *      notes when each webhook arrived;
 *   3. creates a merchant (`merchant create --json`) and points its webhook at the receiver
 *      (`webhook set`), subscribed to the one trigger the burst produces;
 *   4. creates BENCH_PURCHASES purchases through Merchant API v1 (their `purchase.created`
 *      events are not subscribed), waits until they are dispatched, then produces the burst:
 *      - producer `sql` (PostgreSQL, default there): `payment.failed` rows (trigger
 *        paymentFailed) inserted into purchase_events as the payment flows write them, in
 *        transactions of BENCH_BATCH events committed back to back, spread round-robin over
 *        the purchases, each commit followed by the wake-up a Chipin process sends
 *        (`Sql.notify`); the commit time of an event is taken when its COMMIT returns;
 *      - producer `api` (the only one on the embedded database, whose single connection belongs
 *        to the server): `POST /api/purchases/<uid>/abort` on every purchase (trigger
 *        purchaseAborted), BENCH_API_CONCURRENCY at once; the commit time is when the answer
 *        arrives (just after the commit: a lower bound of the latency; the upper bound, from
 *        the request's start, is reported too);
 *   5. waits until every event arrived or BENCH_TIMEOUT seconds passed, prints the figures
 *      (with, on PostgreSQL, where the time went according to the service's own records:
 *      commit → dispatched → first attempt started → arrival), and writes
 *      bench/results/delivery.json (delivery[-embedded][-<rate>ps].json for the variants).
 *      Latency = arrival − commit, both read from this process's clock
 *      (performance.timeOrigin + performance.now()).
 *
 * A burst's latency is mostly queueing: the median event waits for about half the burst to be
 * sent before it, so p50 ≈ (events / 2) / (deliveries per second). BENCH_RATE shows the latency
 * below saturation.
 *
 * Ctrl-C stops the server and drops the database. Under `tsx` (a wrapper process) a busy machine
 * can make tsx SIGKILL the benchmark before that cleanup ends; `node --import tsx
 * bench/delivery.ts` has no wrapper. A leftover is a `chipin_bench_<ts>` database (dropdb) and
 * a /tmp/chipin-bench-delivery-* directory; the server itself stops when the benchmark dies
 * (bench/orphan-guard.mjs).
 *
 * Environment (all optional):
 *   BENCH_EVENTS=5000          events in the burst
 *   BENCH_PURCHASES            purchases they are spread over (sql: 1000; api: one per event)
 *   BENCH_BATCH=100            sql: events per committed transaction (1 when BENCH_RATE is set)
 *   BENCH_RATE=0               events per second, paced (each transaction, each abort request, starts
 *                              on schedule), to see the latency below saturation; 0: an all-at-once burst
 *   BENCH_PRODUCER=sql|api     see above (embedded: api)
 *   BENCH_PRODUCERS            sql: connections committing transactions at once (4 when BENCH_RATE is set,
 *                              else 1); each transaction still starts on schedule
 *   BENCH_API_CONCURRENCY=16   api: abort requests in flight at once
 *   BENCH_TIMEOUT=120          seconds to wait for the deliveries after the burst starts
 *   BENCH_QUIET=0              sql: events per second of a second, quiet merchant (its own endpoint
 *                              path, 50 purchases) while the burst is committed and drained: its
 *                              commit → arrival latency shows whether one merchant's burst holds
 *                              another's webhooks back (docs/webhooks.md#fairness); 0: none
 *   BENCH_DATABASE_URL=...     run on this PostgreSQL database (not dropped)
 *   BENCH_EMBEDDED=1           run on the embedded database (PGlite) instead
 *   BENCH_SERVER_NODE_ARGS     extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=bench/results/prof"
 */
import { runBurst } from './delivery/burst.ts';
import { cleanup, isInterrupted } from './delivery/lifecycle.ts';
import { deliveryResult, printResult, writeResult } from './delivery/result.ts';
import { issueRows } from './delivery/settings.ts';
import { setUp } from './delivery/setup.ts';
import { issueMain } from './delivery/target-rows.ts';

/** One run: set up, the burst, its figures printed and written. */
async function main(): Promise<void> {
  const setup = await setUp();
  const burst = await runBurst(setup);
  const result = await deliveryResult(setup, burst);
  printResult(result, burst.elapsedS);
  writeResult(result);
}

async function runOnce(): Promise<void> {
  try {
    await main();
  } catch (err) {
    // Interrupted: the server and the database go away under the run; the error says nothing more.
    if (!isInterrupted()) process.stderr.write(`bench/delivery.ts: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  } finally {
    if (!isInterrupted()) await cleanup();
  }
}

if (issueRows) issueMain();
else await runOnce();
