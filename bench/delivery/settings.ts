/**
 * bench:delivery's settings (the environment of bench/delivery.ts's header), its constants, and
 * the one clock for commits and arrivals.
 */
import { performance } from 'node:perf_hooks';
import { intEnv } from '../children.ts';

/** The variables that choose one run; with none of them set, the two target rows run. */
const RUN_VARIABLES = ['BENCH_EVENTS', 'BENCH_RATE', 'BENCH_PURCHASES', 'BENCH_BATCH', 'BENCH_PRODUCER', 'BENCH_PRODUCERS', 'BENCH_EMBEDDED', 'BENCH_QUIET'];
export const issueRows = RUN_VARIABLES.every((v) => !process.env[v]?.trim());

const embedded = process.env.BENCH_EMBEDDED === '1';
const producerRaw = process.env.BENCH_PRODUCER?.trim() || (embedded ? 'api' : 'sql');
if (producerRaw !== 'sql' && producerRaw !== 'api') throw new Error(`BENCH_PRODUCER must be "sql" or "api", got "${producerRaw}"`);
if (embedded && producerRaw === 'sql') throw new Error("BENCH_PRODUCER=sql needs PostgreSQL: the embedded database has one connection, the server's");
const producer: 'sql' | 'api' = producerRaw;
const events = intEnv('BENCH_EVENTS', 5_000, 1, 1_000_000);
export const settings = {
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

export const PG_ADMIN = { host: '127.0.0.1', port: '5432', user: 'postgres' };
export const READY_TIMEOUT_MS = 60_000;
export const TRIGGER = producer === 'sql' ? 'paymentFailed' : 'purchaseAborted';
export const QUIET_PATH = '/quiet/webhooks';
export const QUIET_PURCHASES = 50;

/** One clock for commits and arrivals: this process's, in ms since the epoch, sub-ms precision. */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
export const log = (line: string) => process.stdout.write(line + '\n');
