/**
 * The database bench:scale measures: one it creates (chipin_scale_<ms> on BENCH_ADMIN_URL's
 * server), BENCH_DATABASE_URL, or the one the last kept run left (BENCH_SCALE_REUSE=1); and
 * Chipin's environment on it.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { LOOPBACK } from '../children.ts';
import { ident, withDatabase } from './format.ts';
import { createdDatabase, scratchDir } from './lifecycle.ts';
import { STATE_FILE, settings } from './settings.ts';
import { readState, writeState } from './state-file.ts';

export interface Target {
  url: string;
  name: string;
  masterKey: string;
}

export async function chooseDatabase(): Promise<Target> {
  const state = readState();
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  try {
    const exists = async (name: string) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (settings.databaseUrl) {
      const name = decodeURIComponent(new URL(settings.databaseUrl).pathname.slice(1));
      const masterKey = process.env.MASTER_KEY?.trim() || state.databases[name]?.masterKey;
      if (!masterKey) {
        const key = randomBytes(32).toString('hex');
        state.databases[name] = { masterKey: key, createdAt: new Date().toISOString() };
        writeState(state);
        return { url: settings.databaseUrl, name, masterKey: key };
      }
      return { url: settings.databaseUrl, name, masterKey };
    }
    if (settings.reuse && state.last && (await exists(state.last))) {
      const name = state.last;
      const masterKey = process.env.MASTER_KEY?.trim() || state.databases[name]?.masterKey;
      if (!masterKey) throw new Error(`BENCH_SCALE_REUSE: no master key for ${name} in ${STATE_FILE}; set MASTER_KEY`);
      process.stdout.write(`reusing database ${name} (BENCH_SCALE_REUSE=1)\n`);
      return { url: withDatabase(settings.adminUrl, name), name, masterKey };
    }
    if (settings.reuse) process.stdout.write('BENCH_SCALE_REUSE=1: no kept database to reuse, creating one\n');
    const name = `chipin_scale_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${ident(name)}`);
    createdDatabase(name);
    const masterKey = randomBytes(32).toString('hex');
    state.databases[name] = { masterKey, createdAt: new Date().toISOString() };
    if (settings.keep) state.last = name;
    writeState(state);
    process.stdout.write(`created database ${name}${settings.keep ? ' (kept: BENCH_SCALE_KEEP=1)' : ' (dropped at the end)'}\n`);
    return { url: withDatabase(settings.adminUrl, name), name, masterKey };
  } finally {
    await admin.end();
  }
}

/** Chipin's environment for the CLI and the server: this database, its key, a scratch DATA_DIR. */
export function chipinEnv(target: Target): Record<string, string | undefined> {
  return {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: scratchDir(),
    DATABASE_URL: target.url,
    MASTER_KEY: target.masterKey,
    LOG_LEVEL: 'warn',
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
  };
}
