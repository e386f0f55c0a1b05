/** `npm run bench:lifecycle`'s settings (the environment of bench/lifecycle.ts's header) and its constants. */
import { cpus } from 'node:os';
import { intEnv, requireLoopback } from '../children.ts';
import { chooseCores } from '../pinning.ts';

export const settings = {
  merchants: intEnv('BENCH_LIFECYCLE_MERCHANTS', 4, 1, 64),
  concurrency: intEnv('BENCH_LIFECYCLE_CONCURRENCY', 8, 1, 256),
  duration: intEnv('BENCH_LIFECYCLE_DURATION', 20, 1, 600),
  warmup: intEnv('BENCH_LIFECYCLE_WARMUP', 3, 0, 120),
  /** Seconds a step's webhooks may take to reach the receiver before the run fails. */
  webhookTimeout: intEnv('BENCH_LIFECYCLE_WEBHOOK_TIMEOUT', 30, 1, 600),
  /** Lifecycles run one at a time after the windows, each step's WAL told apart by its position (0: none). */
  stepSamples: intEnv('BENCH_LIFECYCLE_STEP_SAMPLES', 9, 0, 300),
  logLevel: process.env.BENCH_LOG_LEVEL?.trim() || 'warn',
  /** Extra `node` flags for Chipin's server, e.g. `--cpu-prof --cpu-prof-dir=bench/results/prof` (as `npm run bench`). */
  serverNodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  /** pg_partman installed in Chipin's database before it is migrated: its append-only tables partitioned by month. */
  partman: process.env.BENCH_LIFECYCLE_PARTMAN === '1',
  adminUrl: process.env.BENCH_LIFECYCLE_ADMIN_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
  cores: chooseCores(process.env.BENCH_PIN),
};
export const pinned = 'load' in settings.cores ? settings.cores : undefined;
requireLoopback(settings.adminUrl, 'BENCH_LIFECYCLE_ADMIN_URL');

/** The machine's cores (not availableParallelism(): pinning narrows this process's affinity). */
export const MACHINE_CORES = cpus().length;
export const READY_TIMEOUT_MS = 120_000;
/** Every HTTP call of a lifecycle is bounded by this. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The webhooks the merchants' endpoints subscribe to: every one the mix makes happen. */
export const EVENTS = ['paymentProcessed', 'pledgerContributes', 'purchaseSucceeded', 'purchaseRefunded', 'installmentPaid'];
export const CARD = '4242 4242 4242 4242';

export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
export const log = (line: string) => process.stdout.write(line + '\n');
