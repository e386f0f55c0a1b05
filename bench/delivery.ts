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
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { saveRows } from './rows.ts';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { CommitNotifier } from '../src/db/notifier.ts';
import { notifyThrough } from '../src/db/postgres.ts';
import { OUTBOX_CHANNEL } from '../src/domain/events.ts';
import { LOOPBACK, ROOT, cpuTimeMs, freePort, killAllSync, machineBusyMs, runTs, spawnTs, stopAll, waitForOk, intEnv } from './children.ts';

// --- settings ------------------------------------------------------------------------------

/** The variables that choose one run; with none of them set, the two target rows run. */
const RUN_VARIABLES = ['BENCH_EVENTS', 'BENCH_RATE', 'BENCH_PURCHASES', 'BENCH_BATCH', 'BENCH_PRODUCER', 'BENCH_PRODUCERS', 'BENCH_EMBEDDED', 'BENCH_QUIET'];
const issueRows = RUN_VARIABLES.every((v) => !process.env[v]?.trim());

const embedded = process.env.BENCH_EMBEDDED === '1';
const producerRaw = process.env.BENCH_PRODUCER?.trim() || (embedded ? 'api' : 'sql');
if (producerRaw !== 'sql' && producerRaw !== 'api') throw new Error(`BENCH_PRODUCER must be "sql" or "api", got "${producerRaw}"`);
if (embedded && producerRaw === 'sql') throw new Error("BENCH_PRODUCER=sql needs PostgreSQL: the embedded database has one connection, the server's");
const producer: 'sql' | 'api' = producerRaw;
const events = intEnv('BENCH_EVENTS', 5_000, 1, 1_000_000);
const settings = {
  events,
  purchases: producer === 'api' ? events : intEnv('BENCH_PURCHASES', Math.min(1_000, events), 1, events),
  /** Events per second, paced; 0: the whole burst as fast as it commits. */
  rate: intEnv('BENCH_RATE', 0, 0, 1_000_000),
  batch: intEnv('BENCH_BATCH', process.env.BENCH_RATE?.trim() && process.env.BENCH_RATE.trim() !== '0' ? 1 : 100, 1, 10_000),
  producer,
  /** sql: connections committing at once (one cannot commit 2,000 transactions/s on a busy machine). */
  producers: intEnv('BENCH_PRODUCERS', process.env.BENCH_RATE?.trim() && process.env.BENCH_RATE.trim() !== '0' ? 4 : 1, 1, 64),
  apiConcurrency: intEnv('BENCH_API_CONCURRENCY', 16, 1, 256),
  /** Events per second of a second, quiet merchant during the run (sql producer); 0: none. */
  quietRate: intEnv('BENCH_QUIET', 0, 0, 1_000),
  timeoutS: intEnv('BENCH_TIMEOUT', 120, 5, 3_600),
  embedded,
  givenDatabaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
  serverNodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
};
if (settings.quietRate > 0 && producer !== 'sql') throw new Error('BENCH_QUIET needs the sql producer (PostgreSQL)');
if (producer === 'api' && process.env.BENCH_PURCHASES) process.stderr.write('BENCH_PURCHASES ignored: the api producer aborts one purchase per event\n');

const PG_ADMIN = { host: '127.0.0.1', port: '5432', user: 'postgres' };
const READY_TIMEOUT_MS = 60_000;
const TRIGGER = producer === 'sql' ? 'paymentFailed' : 'purchaseAborted';
const QUIET_PATH = '/quiet/webhooks';
const QUIET_PURCHASES = 50;

/** One clock for commits and arrivals: this process's, in ms since the epoch, sub-ms precision. */
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const log = (line: string) => process.stdout.write(line + '\n');

// --- cleanup -------------------------------------------------------------------------------

let dataDir: string | undefined;
let createdDb: string | undefined;
let receiver: Receiver | undefined;
let sqlClient: pg.Client | undefined;
/** The sql producer's extra connections (BENCH_PRODUCERS). */
const producerClients: pg.Client[] = [];
/** Other connections of the run (the quiet merchant's, the notifier's), closed at the end. */
const otherClients: pg.Client[] = [];
/**
 * The sql producers write events as a Chipin process does, so they wake the workers as one does:
 * after each commit, through a NOTIFY of their own, coalesced (src/db/notifier.ts).
 */
let notifier: CommitNotifier | undefined;

async function cleanup(): Promise<void> {
  await sqlClient?.end().catch(() => {});
  sqlClient = undefined;
  await notifier?.flush();
  notifier = undefined;
  for (const c of [...producerClients.splice(0), ...otherClients.splice(0)]) await c.end().catch(() => {});
  await stopAll();
  await receiver?.close().catch(() => {});
  receiver = undefined;
  if (createdDb) {
    try {
      execFileSync('dropdb', ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user, '--if-exists', '--force', createdDb], { stdio: 'pipe', timeout: 30_000 });
    } catch (err) {
      process.stderr.write(`could not drop database ${createdDb}: ${(err as Error).message}\n`);
    }
    createdDb = undefined;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

// --- the receiver --------------------------------------------------------------------------

interface Arrival {
  /** The matching key: triggerID (sql producer) or objects.purchaseId (api producer). */
  key: string;
  triggerId: number;
  at: number;
}

/** A healthy webhook receiver: 200 at once, arrival noted when the body is complete. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  /** Arrivals on QUIET_PATH (BENCH_QUIET's merchant), by triggerID: not part of the burst. */
  readonly quietArrivals = new Map<number, number>();
  /** Bodies that did not parse or carried another trigger. */
  unexpected = 0;
  port = 0;
  onArrival: (() => void) | undefined;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(keyOf: (body: { triggerID: number; objects?: { purchaseId?: string } }) => string) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = now();
        res.writeHead(200, { 'content-length': '0' }).end();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { triggerID: number; triggerName: string; objects?: { purchaseId?: string } };
          if (req.url === QUIET_PATH) {
            if (!this.quietArrivals.has(body.triggerID)) this.quietArrivals.set(body.triggerID, at);
            return;
          }
          if (body.triggerName !== TRIGGER) this.unexpected++;
          else this.arrivals.push({ key: keyOf(body), triggerId: body.triggerID, at });
        } catch {
          this.unexpected++;
        }
        this.onArrival?.();
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((ok) => this.#server.listen(0, LOOPBACK, ok));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((ok) => this.#server.close(() => ok()));
  }
}

// --- Chipin --------------------------------------------------------------------------------

interface Credentials {
  account_id: string;
  email: string;
  password: string;
  api_key: string;
  api_secret: string;
}

async function prepareDatabase(): Promise<string | undefined> {
  if (settings.embedded) return undefined;
  if (settings.givenDatabaseUrl) return settings.givenDatabaseUrl;
  const name = `chipin_bench_${Date.now()}`;
  execFileSync('createdb', ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user, name], { stdio: 'pipe', timeout: 30_000 });
  createdDb = name;
  return `postgres://${PG_ADMIN.user}@${PG_ADMIN.host}:${PG_ADMIN.port}/${name}`;
}

async function accessToken(url: string, c: Credentials): Promise<string> {
  const res = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${c.api_key}:${c.api_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Runs `fn` on every item, `concurrency` at once. */
async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

async function createPurchases(url: string, token: string, n: number): Promise<string[]> {
  return pool(
    Array.from({ length: n }, (_, i) => i),
    8,
    async (i) => {
      const res = await fetch(`${url}/api/merchants/v1/purchases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Bench purchase ${i}`, amount: 30_000, client: { email: 'leader@example.com' } }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`create purchase: ${res.status} ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { id: string }).id;
    },
  );
}

// --- producers -----------------------------------------------------------------------------

interface Committed {
  /** When the commit was known to this process (COMMIT returned; the abort's answer arrived). */
  at: number;
  /** api: when the request started (commit happened between it and `at`). */
  sentAt?: number;
}

/** With BENCH_RATE, waits until event `i` is due (`t0` + i / rate). */
async function onSchedule(t0: number, i: number): Promise<void> {
  if (settings.rate === 0) return;
  const wait = t0 + (i * 1000) / settings.rate - now();
  if (wait > 0) await sleep(wait);
}

/**
 * payment.failed rows, BENCH_BATCH per transaction, committed back to back (or on schedule) by
 * BENCH_PRODUCERS connections at once; keyed by event id.
 */
async function produceSql(clients: pg.Client[], accountId: string, purchases: string[], commits: Map<string, Committed>): Promise<void> {
  const t0 = now();
  const starts = Array.from({ length: Math.ceil(settings.events / settings.batch) }, (_, i) => i * settings.batch);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < starts.length) {
        const start = starts[next++]!;
        const count = Math.min(settings.batch, settings.events - start);
        await onSchedule(t0, start);
        const targets = Array.from({ length: count }, (_, i) => purchases[(start + i) % purchases.length]!);
        await client.query('BEGIN');
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
           SELECT p.account_id, p.id, 'payment.failed', p.state, p.state,
             jsonb_build_object('bench', t.n, 'error', 'card declined'), clock_timestamp()
           FROM unnest($2::uuid[]) WITH ORDINALITY AS t(purchase_id, n)
           JOIN purchases p ON p.account_id = $1 AND p.id = t.purchase_id
           ORDER BY t.n
           RETURNING id`,
          [accountId, targets],
        );
        await client.query('COMMIT');
        const at = now();
        notifier?.publish(OUTBOX_CHANNEL);
        if (rows.length !== count) throw new Error(`inserted ${rows.length} events instead of ${count}`);
        for (const r of rows) commits.set(String(r.id), { at });
      }
    }),
  );
}

/** One abort per purchase, BENCH_API_CONCURRENCY at once; keyed by purchase id. */
async function produceApi(url: string, token: string, purchases: string[], commits: Map<string, Committed>): Promise<void> {
  const t0 = now();
  await pool(purchases, settings.apiConcurrency, async (id, i) => {
    await onSchedule(t0, i);
    const sentAt = now();
    const res = await fetch(`${url}/api/purchases/pur_${id}/abort`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const at = now();
    if (res.status !== 200) throw new Error(`abort: ${res.status} ${text.slice(0, 300)}`);
    commits.set(id, { at, sentAt });
  });
}

/**
 * BENCH_QUIET: one payment.failed event a tick for the quiet merchant (round robin over its
 * purchases), each in its own transaction, until `stop` resolves; keyed by event id.
 */
async function produceQuiet(client: pg.Client, accountId: string, purchases: string[], commits: Map<number, number>, stop: Promise<unknown>): Promise<void> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const t0 = now();
  for (let i = 0; !stopped; i++) {
    const wait = t0 + (i * 1000) / settings.quietRate - now();
    if (wait > 0) await Promise.race([sleep(wait), stop]);
    if (stopped) break;
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
       SELECT account_id, id, 'payment.failed', state, state, '{"quiet":true}', clock_timestamp() FROM purchases WHERE account_id = $1 AND id = $2
       RETURNING id`,
      [accountId, purchases[i % purchases.length]],
    );
    commits.set(Number(rows[0]!.id), now());
    notifier?.publish(OUTBOX_CHANNEL);
  }
}

// --- figures -------------------------------------------------------------------------------

/** CPU time (ms) of every process named `postgres` on this machine, by pid (Linux; empty elsewhere). */
function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
        const ms = cpuTimeMs(Number(name));
        if (ms !== undefined) out.set(Number(name), ms);
      } catch {
        /* gone meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return out;
}

/** CPU the postgres processes used between two readings (processes that ended meanwhile are missed). */
function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number | undefined {
  if (after.size === 0) return undefined;
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
}

const r1 = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10);

function distribution(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: r1(percentile(s, 50)),
    p90: r1(percentile(s, 90)),
    p99: r1(percentile(s, 99)),
    max: r1(s[s.length - 1]),
    min: r1(s[0]),
    mean: r1(s.length ? s.reduce((a, b) => a + b, 0) / s.length : undefined),
  };
}

/**
 * Where the time went, from what the service recorded (service clock = wall clock here: a fresh
 * sandbox whose clock was not moved; ms precision): commit → dispatched (the delivery row's
 * created_at) → first attempt started → arrival. Only for the sql producer, keyed by event id.
 */
async function breakdown(db: pg.Client, accountId: string, commits: Map<string, Committed>, arrivalOf: Map<string, number>) {
  // Fresh statistics first: tables filled within the run look empty to the planner, whose nested
  // loop over tens of thousands of attempts then took minutes.
  await db.query('ANALYZE deliveries, delivery_attempts');
  const { rows } = await db.query<{ event_id: string; created_at: Date; started_at: Date | null; duration_ms: number | null; attempts: number }>(
    `SELECT d.event_id, d.created_at, a.started_at, a.duration_ms, d.attempts
     FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
     WHERE d.account_id = $1 AND d.kind = 'webhook'`,
    [accountId],
  );
  const toDispatch: number[] = [];
  const toStart: number[] = [];
  const toArrive: number[] = [];
  const attemptMs: number[] = [];
  const dispatchTimes = new Set<number>();
  const starts: number[] = [];
  let retried = 0;
  for (const r of rows) {
    const key = String(r.event_id);
    const c = commits.get(key);
    const arrived = arrivalOf.get(key);
    if (!c) continue;
    const created = new Date(r.created_at).getTime();
    dispatchTimes.add(created);
    toDispatch.push(created - c.at);
    if (r.started_at) {
      const started = new Date(r.started_at).getTime();
      starts.push(started);
      toStart.push(started - created);
      if (arrived !== undefined) toArrive.push(arrived - started);
    }
    if (r.duration_ms !== null) attemptMs.push(r.duration_ms);
    if (r.attempts > 1) retried++;
  }
  const dispatched = [...dispatchTimes].sort((a, b) => a - b);
  return {
    deliveries: rows.length,
    retried,
    /** Dispatch transactions that made deliveries (distinct created_at), and their span. */
    dispatchPasses: dispatched.length,
    commitToDispatchedMs: distribution(toDispatch),
    dispatchedToAttemptStartMs: distribution(toStart),
    attemptStartToArrivalMs: distribution(toArrive),
    attemptDurationMs: distribution(attemptMs),
    firstDispatchAt: dispatched[0],
    lastDispatchAt: dispatched[dispatched.length - 1],
    firstAttemptAt: starts.length ? Math.min(...starts) : undefined,
    lastAttemptAt: starts.length ? Math.max(...starts) : undefined,
  };
}

// --- main ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memTotalGiB: r1(totalmem() / 2 ** 30),
    node: process.version,
    loadAvgAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  };
  const databaseUrl = await prepareDatabase();
  const database = settings.embedded
    ? 'embedded PGlite (fresh temp DATA_DIR)'
    : settings.givenDatabaseUrl
      ? 'PostgreSQL (BENCH_DATABASE_URL)'
      : `PostgreSQL (fresh database ${createdDb})`;
  log(
    `Delivery benchmark: ${settings.events} events (${settings.producer === 'sql' ? `payment.failed rows, ${settings.batch} per transaction` : `aborts, ${settings.apiConcurrency} at once`}` +
      `${settings.rate ? `, paced at ${settings.rate}/s` : ', all at once'}) ` +
      `over ${settings.purchases} purchases, ${database}.\n` +
      `Machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, load average ${machine.loadAvgAtStart.join(' ')}.`,
  );

  receiver = new Receiver((b) => (settings.producer === 'sql' ? String(b.triggerID) : String(b.objects?.purchaseId ?? '')));
  await receiver.start();
  const hookUrl = `http://${LOOPBACK}:${receiver.port}/chipin/webhooks`;

  dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-delivery-'));
  const env = {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
  };
  // Before the server: the embedded database takes one process at a time. This also migrates.
  const email = `bench-delivery-${Date.now()}-${process.pid}@chipin.test`;
  const credentials = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', 'Delivery Bench', '--email', email, '--json'], env)) as Credentials;
  await runTs('src/main.ts', ['webhook', 'set', '--account', credentials.account_id, '--url', hookUrl, '--events', TRIGGER, '--json'], env);
  const accountId = credentials.account_id.replace(/^acc_/, '');
  let quiet: Credentials | undefined;
  if (settings.quietRate > 0) {
    quiet = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', 'Quiet Bench', '--email', `quiet-${email}`, '--json'], env)) as Credentials;
    await runTs('src/main.ts', ['webhook', 'set', '--account', quiet.account_id, '--url', `http://${LOOPBACK}:${receiver.port}${QUIET_PATH}`, '--events', TRIGGER, '--json'], env);
  }

  const port = await freePort();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(port) }, settings.serverNodeArgs);
  const url = `http://${LOOPBACK}:${port}`;
  await waitForOk(child, `${url}/readyz`, READY_TIMEOUT_MS);
  const token = await accessToken(url, credentials);

  const t0 = now();
  const purchases = await createPurchases(url, token, settings.purchases);
  log(`Created ${purchases.length} purchases in ${((now() - t0) / 1000).toFixed(1)} s.`);
  const quietPurchases = quiet ? await createPurchases(url, await accessToken(url, quiet), QUIET_PURCHASES) : [];

  if (databaseUrl) {
    sqlClient = new pg.Client({ connectionString: databaseUrl });
    await sqlClient.connect();
    // Quiet before the burst: every purchase.created event dispatched (none is subscribed).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await sqlClient.query<{ n: number }>('SELECT count(*)::int AS n FROM purchase_events WHERE account_id = $1 AND dispatched_at IS NULL', [accountId]);
      if (rows[0]!.n === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} events still undispatched after 30 s`);
      await sleep(100);
    }
  } else {
    await sleep(2_000);
  }
  if (receiver.arrivals.length + receiver.unexpected > 0) throw new Error('the receiver got webhooks before the burst');
  await sleep(500); // let the worker's wake-ups from the setup settle

  // --- the burst ---
  const commits = new Map<string, Committed>();
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  let allIn: (() => void) | undefined;
  const allArrived = new Promise<void>((ok) => (allIn = ok));
  receiver.onArrival = () => {
    const a = receiver!.arrivals[receiver!.arrivals.length - 1];
    if (!a) return;
    if (firstArrival.has(a.key)) duplicates++;
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
    notifier = new CommitNotifier(notifyThrough(c));
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
  if (settings.producer === 'sql') await produceSql([sqlClient!, ...producerClients], accountId, purchases, commits);
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

  // --- figures ---
  const latencies: number[] = [];
  const upper: number[] = [];
  let firstCommit = Infinity;
  for (const [key, c] of commits) {
    firstCommit = Math.min(firstCommit, c.at);
    const at = firstArrival.get(key);
    if (at === undefined) continue;
    latencies.push(at - c.at);
    if (c.sentAt !== undefined) upper.push(at - c.sentAt);
  }
  const received = firstArrival.size;
  const lost = [...commits.keys()].filter((k) => !firstArrival.has(k)).length;
  const strangers = [...firstArrival.keys()].filter((k) => !commits.has(k)).length;
  const spanS = received > 0 ? (lastArrival - firstCommit) / 1000 : undefined;
  const latency = distribution(latencies);
  const wallMs = cpu1.at - burstStart;
  const cpuPercent = (ms: number | undefined) => (ms === undefined ? undefined : Math.round((ms / wallMs) * 1000) / 10);

  // The quiet merchant: events committed at least 1 s before the end (time to arrive), and theirs.
  const quietLatencies: number[] = [];
  let quietLost = 0;
  for (const [id, at] of quietCommits) {
    const arrived = receiver.quietArrivals.get(id);
    if (arrived !== undefined) quietLatencies.push(arrived - at);
    else if (at < cpu1.at - 1_000) quietLost++;
  }
  const quietLatency = quiet ? distribution(quietLatencies) : undefined;

  let stages: Awaited<ReturnType<typeof breakdown>> | undefined;
  if (settings.producer === 'sql' && databaseUrl) {
    stages = await breakdown(sqlClient!, accountId, commits, firstArrival);
  }

  const result = {
    date: new Date().toISOString(),
    machine: { ...machine, loadAvgAtEnd },
    settings: {
      events: settings.events,
      purchases: settings.purchases,
      producer: settings.producer,
      trigger: TRIGGER,
      ...(settings.producer === 'sql' ? { eventsPerTransaction: settings.batch, producerConnections: settings.producers } : { apiConcurrency: settings.apiConcurrency }),
      ratePerSecond: settings.rate || 'burst',
      database,
      timeoutS: settings.timeoutS,
      serverNodeArgs: settings.serverNodeArgs,
    },
    events: commits.size,
    received,
    duplicates,
    lost,
    unexpected: receiver.unexpected + strangers,
    timedOut,
    burstCommitSeconds: r1((burstEnd - burstStart) / 1000),
    spanSeconds: spanS === undefined ? undefined : Math.round(spanS * 1000) / 1000,
    deliveriesPerSecond: spanS ? r1(received / spanS) : undefined,
    latencyMs: latency,
    ...(quietLatency ? { quietMerchant: { ratePerSecond: settings.quietRate, events: quietCommits.size, notYetArrived: quietLost, latencyMs: quietLatency } } : {}),
    ...(upper.length ? { latencyUpperBoundMs: distribution(upper) } : {}),
    p50Under50ms: latency.p50 !== undefined && latency.p50 < 50,
    cpuPercentOfOneCore: {
      chipin: cpuPercent(cpu0.chipin === undefined || cpu1.chipin === undefined ? undefined : cpu1.chipin - cpu0.chipin),
      benchProcess: cpuPercent((cpu1.bench.user + cpu1.bench.system) / 1000),
      /** Every postgres process on the machine (other users of the server included). */
      ...(settings.embedded ? {} : { postgres: cpuPercent(postgresCpuBetween(cpu0.postgres, cpu1.postgres)) }),
      wholeMachine: cpuPercent(cpu0.machine === undefined || cpu1.machine === undefined ? undefined : cpu1.machine - cpu0.machine),
    },
    ...(stages ? { stages } : {}),
  };

  const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n} ms`);
  log('');
  log(`events                 ${result.events}`);
  log(`deliveries received    ${received}${timedOut ? ` (timed out after ${elapsedS.toFixed(1)} s)` : ''}`);
  log(`duplicates             ${duplicates}`);
  log(`lost                   ${lost}`);
  if (result.unexpected) log(`unexpected             ${result.unexpected}`);
  log(`burst committed in     ${result.burstCommitSeconds} s`);
  log(`deliveries/s           ${result.deliveriesPerSecond ?? 'n/a'}  (${received} over ${result.spanSeconds} s, first commit → last arrival)`);
  log(`latency p50            ${ms(latency.p50)}`);
  log(`latency p90            ${ms(latency.p90)}`);
  log(`latency p99            ${ms(latency.p99)}`);
  log(`latency max            ${ms(latency.max)}   (min ${ms(latency.min)}, mean ${ms(latency.mean)})`);
  if (result.latencyUpperBoundMs)
    log(`latency from request   p50 ${ms(result.latencyUpperBoundMs.p50)}, p99 ${ms(result.latencyUpperBoundMs.p99)} (upper bound: abort request start → arrival)`);
  log(`p50 < 50 ms            ${result.p50Under50ms ? 'yes' : 'NO'}`);
  if (quietLatency) {
    log(`quiet merchant         ${quietCommits.size} events at ${settings.quietRate}/s during the run, ${quietLost} not arrived 1 s after commit by the end`);
    log(`  its latency          p50 ${ms(quietLatency.p50)}, p90 ${ms(quietLatency.p90)}, p99 ${ms(quietLatency.p99)}, max ${ms(quietLatency.max)}`);
  }
  log(
    `CPU (% of one core)    chipin ${result.cpuPercentOfOneCore.chipin}, bench ${result.cpuPercentOfOneCore.benchProcess}${'postgres' in result.cpuPercentOfOneCore ? `, postgres ${result.cpuPercentOfOneCore.postgres}` : ''}, whole machine ${result.cpuPercentOfOneCore.wholeMachine} (of ${machine.cpus * 100})`,
  );
  log(`load average           start ${machine.loadAvgAtStart.join(' ')}, end ${loadAvgAtEnd.join(' ')}`);
  if (stages) {
    const d = (x: ReturnType<typeof distribution>) => `p50 ${ms(x.p50)}, p90 ${ms(x.p90)}, p99 ${ms(x.p99)}, max ${ms(x.max)}`;
    log('stages (service records, ms precision):');
    log(`  commit → dispatched        ${d(stages.commitToDispatchedMs)}  (${stages.dispatchPasses} dispatch transactions)`);
    log(`  dispatched → attempt start ${d(stages.dispatchedToAttemptStartMs)}`);
    log(`  attempt start → arrival    ${d(stages.attemptStartToArrivalMs)}`);
    log(`  attempt duration           ${d(stages.attemptDurationMs)}`);
    if (stages.retried) log(`  deliveries retried         ${stages.retried}`);
  }

  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const out = join(ROOT, 'bench/results', `delivery${settings.embedded ? '-embedded' : ''}${settings.rate ? `-${settings.rate}ps` : ''}.json`);
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  log(`\nWrote ${out}`);
  if (lost > 0 || duplicates > 0) process.exitCode = 1;
}

// --- the target rows (no run variable set) -------------------------------------------------

interface RunResult {
  events: number;
  received: number;
  duplicates: number;
  lost: number;
  timedOut: boolean;
  burstCommitSeconds: number;
  deliveriesPerSecond?: number;
  latencyMs: { p50?: number; p99?: number };
  cpuPercentOfOneCore: { chipin?: number; postgres?: number; wholeMachine?: number };
}

/** One run of this script in a child process, with `vars`; answers what it wrote. */
function childRun(vars: Record<string, string>, resultFile: string): RunResult | undefined {
  const out = join(ROOT, 'bench/results', resultFile);
  rmSync(out, { force: true });
  // Each run has its own server and database; a child run keeps this script's cleanup on Ctrl-C.
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/delivery.ts')], { cwd: ROOT, env: { ...process.env, ...vars }, stdio: 'inherit' });
  try {
    return JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  } catch {
    return undefined;
  }
}

/**
 * The paced row runs at the highest rate this host's producers commit (measured first, in the
 * same shape: one event per transaction on four connections, Chipin delivering meanwhile), at
 * most `maxRate`: on 2 cores the producers, PostgreSQL and the delivery share the machine, and a
 * pace the producers cannot keep would measure the producers, not the delivery.
 */
const PACED = { maxRate: 2_000, seconds: 30, p50Ms: 50, p99Ms: 500, calibrationEvents: 15_000 };
const BURST = { events: 20_000, drainPerSecond: 2_000 };

function issueMain(): void {
  log(`Delivery benchmark, the issue's rows: the producers' highest commit rate, paced at it for ${PACED.seconds} s, then a burst of ${BURST.events}.\n`);
  const calibration = childRun({ BENCH_RATE: '0', BENCH_BATCH: '1', BENCH_PRODUCERS: '4', BENCH_EVENTS: String(PACED.calibrationEvents) }, 'delivery.json');
  const producersRate = calibration ? calibration.events / calibration.burstCommitSeconds : undefined;
  log('');
  if (!producersRate) {
    log('the calibration run failed: no paced row');
    saveRows('delivery', [{ row: 'webhook delivery, paced', target: '', measured: 'the calibration run failed', verdict: 'NOT MEASURED' }]);
    return;
  }
  const rate = Math.max(50, Math.min(PACED.maxRate, Math.floor(producersRate / 50) * 50));
  log(`producers committed ${Math.round(producersRate)} events/s (one per transaction, 4 connections): pacing at ${rate}/s\n`);
  const paced = childRun({ BENCH_RATE: String(rate), BENCH_EVENTS: String(rate * PACED.seconds) }, `delivery-${rate}ps.json`);
  log('');
  const burst = childRun({ BENCH_EVENTS: String(BURST.events) }, 'delivery.json');
  const exact = (r: RunResult) => r.lost === 0 && r.duplicates === 0 && r.received === r.events && !r.timedOut;
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  const rows: string[][] = [['scenario', 'target', 'measured', 'result']];
  if (paced) {
    // The producer must have kept the pace for the row to be the one asked for (5 % slack).
    const pace = paced.events / paced.burstCommitSeconds;
    const met = exact(paced) && pace >= rate * 0.95 && (paced.latencyMs.p50 ?? Infinity) < PACED.p50Ms && (paced.latencyMs.p99 ?? Infinity) < PACED.p99Ms;
    rows.push([
      `webhook delivery, paced at ${rate}/s (producers' highest: ${Math.round(producersRate)}/s) for ${PACED.seconds} s`,
      `p50 < ${PACED.p50Ms} ms, p99 < ${PACED.p99Ms} ms, none lost, none twice`,
      `p50 ${paced.latencyMs.p50} ms, p99 ${paced.latencyMs.p99} ms, committed at ${Math.round(pace)}/s, lost ${paced.lost}, twice ${paced.duplicates}` +
        `, CPU chipin ${paced.cpuPercentOfOneCore.chipin} % postgres ${paced.cpuPercentOfOneCore.postgres} %`,
      verdict(met),
    ]);
  } else rows.push([`webhook delivery, paced at ${rate}/s for ${PACED.seconds} s`, '', 'the run failed', 'NOT MET']);
  if (burst) {
    const met = exact(burst) && (burst.deliveriesPerSecond ?? 0) >= BURST.drainPerSecond;
    rows.push([
      `burst of ${BURST.events} events`,
      `drained at ≥ ${BURST.drainPerSecond} deliveries/s, none lost, none twice`,
      `${burst.deliveriesPerSecond} deliveries/s, lost ${burst.lost}, twice ${burst.duplicates}` +
        `, CPU chipin ${burst.cpuPercentOfOneCore.chipin} % postgres ${burst.cpuPercentOfOneCore.postgres} %`,
      verdict(met),
    ]);
  } else rows.push([`burst of ${BURST.events} events`, '', 'the run failed', 'NOT MET']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  log('');
  for (const r of rows) log(r.map((c, i) => c.padEnd(widths[i]!)).join(' | '));
  saveRows(
    'delivery',
    rows.slice(1).map(([row, target, measured, verdict]) => ({ row: row!, target: target!, measured: measured!, verdict: verdict === 'MET' ? 'MET' : 'NOT MET' })),
  );
}

async function runOnce(): Promise<void> {
  try {
    await main();
  } catch (err) {
    // Interrupted: the server and the database go away under the run; the error says nothing more.
    if (!interrupted) process.stderr.write(`bench/delivery.ts: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  } finally {
    if (!interrupted) await cleanup();
  }
}

if (issueRows) issueMain();
else await runOnce();
