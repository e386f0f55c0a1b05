import { parseArgs } from 'node:util';
import { SandboxClock } from '../clock/sandbox-clock.ts';
import type { Config } from '../config.ts';
import { verifyConfiguredKey } from '../crypto/master-key-check.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { systemClock, type Clock } from '../domain/clock.ts';

/** Every option of every command, as `parseArgs` reads them (src/main.ts); each command takes the ones it names. */
export const OPTIONS = {
  name: { type: 'string' },
  email: { type: 'string' },
  'time-zone': { type: 'string' },
  country: { type: 'string' },
  language: { type: 'string' },
  account: { type: 'string' },
  key: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  psp: { type: 'string' },
  environment: { type: 'string' },
  label: { type: 'string' },
  'credentials-file': { type: 'string' },
  'endpoint-url': { type: 'string' },
  'no-verify': { type: 'boolean', default: false },
  id: { type: 'string' },
  offer: { type: 'string' },
  'psp-account': { type: 'string' },
  type: { type: 'string' },
  installments: { type: 'string' },
  'deferred-days': { type: 'string' },
  'deposit-percent': { type: 'string' },
  'max-balance-delay-days': { type: 'string' },
  date: { type: 'string' },
  'execution-date': { type: 'string' },
  out: { type: 'string' },
  payout: { type: 'string' },
  status: { type: 'string' },
  export: { type: 'string' },
  'operator-account': { type: 'string' },
  sandbox: { type: 'boolean', default: false },
  mode: { type: 'string' },
  role: { type: 'string' },
  'commission-bps': { type: 'string' },
  'commission-fixed-cents': { type: 'string' },
  purchase: { type: 'string' },
  'amount-cents': { type: 'string' },
  refund: { type: 'string' },
  rotate: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The options given, by name: a string for a string option, a boolean for a flag. */
export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Prints a command's answer: `human` on one or more lines, or `data` as JSON with `--json`. */
export type Out = (human: string, data: unknown) => void;

/** One command (`merchant create`, `payout run` …): its options in, its answer printed through `out`. */
export type Command = (config: Config, values: Values, out: Out) => Promise<void>;

/** A command line that cannot be run as given: printed with the usage text. */
export class UsageError extends Error {}

/** A refusal of a CLI command, printed as one line. */
export class CliError extends Error {}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** Runs `fn` against the configured database with the schema up to date, then closes it. */
export async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await verifyConfiguredKey(db, config);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * {@link withDatabase} with the service clock (docs/jobs-and-clock.md#the-service-clock): a
 * sandbox's, moved or not, the system clock in production. A command that reads "now" reads it
 * here, as the service does: a sandbox moved forward takes a transfer received on its today.
 */
export function withDatabaseAndClock<T>(config: Config, fn: (db: Database, clock: Clock) => Promise<T>): Promise<T> {
  return withDatabase(config, async (db) => fn(db, config.env === 'sandbox' ? await SandboxClock.open(db) : systemClock));
}
