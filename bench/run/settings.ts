/** `npm run bench`'s settings (the environment of bench/run.ts's header) and the machine's cores. */
import { cpus } from 'node:os';
import { intEnv } from '../children.ts';
import { chooseCores } from '../pinning.ts';

export const settings = {
  duration: intEnv('BENCH_DURATION', 10, 1, 500), // tokens live 600 s; setup fetches one per scenario
  connections: intEnv('BENCH_CONNECTIONS', 50, 1, 1000),
  warmup: intEnv('BENCH_WARMUP', 2, 0, 60),
  rounds: intEnv('BENCH_ROUNDS', 1, 1, 20),
  logLevel: process.env.BENCH_LOG_LEVEL?.trim() || 'info',
  databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
  only: (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean),
  serverNodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  // The several-processes row is part of every PostgreSQL run (it needs a shared database).
  processes: intEnv('BENCH_PROCESSES', process.env.BENCH_DATABASE_URL?.trim() ? 2 : 1, 1, 8),
  cores: chooseCores(process.env.BENCH_PIN),
};
export const pinned = 'load' in settings.cores ? settings.cores : undefined;
if (settings.processes > 1 && !settings.databaseUrl) throw new Error('BENCH_PROCESSES needs BENCH_DATABASE_URL: processes share a PostgreSQL database');

export const READY_TIMEOUT_MS = 120_000;
/**
 * The machine's cores. Not `availableParallelism()`: it follows this process's affinity, which
 * pinning sets to the load generator's one core.
 */
export const MACHINE_CORES = cpus().length;
/**
 * CPU used by the rest of the machine above which a measurement is flagged as disturbed. On a quiet
 * machine this is kernel network work for loopback traffic, about 10 to 30 % of a core here.
 */
export const DISTURBED_OTHER_CPU_PERCENT = 50;
