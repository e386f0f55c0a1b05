import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';
import { databaseUrlNamed } from '../helpers/postgres-url.ts';
import { freePort } from '../process/harness.ts';

/**
 * Chipin's database layer through PgBouncer in transaction mode, as Debian ships it (1.18, no
 * named prepared statements), started from the reference configuration deploy/pgbouncer/
 * pgbouncer.ini (docs/deployment.md#pgbouncer). PostgreSQL only; skipped, with a notice, where
 * the `pgbouncer` binary is missing (.ci/run installs it).
 */
const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p));
const runs = onPostgres && BINARY !== undefined;
if (onPostgres && !runs) console.info('pgbouncer tests skipped: no pgbouncer binary (apt-get install pgbouncer)');

/** The reference file with this run's port, directories and trust authentication (a local test server). */
function configured(port: number, dir: string, upstream: URL): string {
  const set: Record<string, string> = {
    listen_port: String(port),
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: join(dir, 'userlist.txt'),
    logfile: join(dir, 'pgbouncer.log'),
    pidfile: join(dir, 'pgbouncer.pid'),
  };
  const ini = readFileSync(new URL('../../deploy/pgbouncer/pgbouncer.ini', import.meta.url), 'utf8')
    .replace(/^\* = host=\S+ port=\d+$/m, `* = host=${upstream.hostname} port=${upstream.port || '5432'}`)
    .replace(/^(\w+) = .*$/gm, (line, key: string) => (key in set ? `${key} = ${set[key]}` : line));
  for (const key of Object.keys(set)) if (!new RegExp(`^${key} = `, 'm').test(ini)) throw new Error(`deploy/pgbouncer/pgbouncer.ini lost its ${key} line`);
  return ini;
}

describe.runIf(runs)('through PgBouncer in transaction mode (deploy/pgbouncer/pgbouncer.ini)', () => {
  let bouncer: ChildProcess;
  let dir: string;
  let isolated: IsolatedDatabase;
  let viaPooler: string;
  let direct: string;
  const opened: Database[] = [];
  const open = (url: string, options: Parameters<typeof openPostgres>[1]) => {
    const db = openPostgres(url, options);
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    const upstream = new URL(process.env.DATABASE_URL!);
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'chipin-pgbouncer-'));
    // PgBouncer refuses to run as root: under root (CI) it drops to the postgres user, who must
    // read the configuration and write the log and pid files.
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, 'userlist.txt'), `"${decodeURIComponent(upstream.username || 'postgres')}" ""\n`, { mode: 0o644 });
    writeFileSync(join(dir, 'pgbouncer.ini'), configured(port, dir, upstream), { mode: 0o644 });
    const asRoot = process.getuid?.() === 0;
    bouncer = spawn(BINARY!, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    isolated = await isolatedDatabase({ empty: true });
    direct = databaseUrlNamed(process.env.DATABASE_URL!, new URL(isolated.url!).pathname.slice(1));
    viaPooler = databaseUrlNamed(`postgres://${upstream.username || 'postgres'}@127.0.0.1:${port}/`, new URL(direct).pathname.slice(1));
    // Bounded wait for the listener.
    for (let i = 0; ; i++) {
      const probe = openPostgres(viaPooler, { max: 1, pooler: 'transaction' });
      try {
        await probe.query('SELECT 1');
        break;
      } catch (err) {
        if (i >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await probe.close();
      }
    }
  });

  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close().catch(() => {})));
    bouncer?.kill('SIGTERM');
    await isolated?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every migration applies through it, and concurrent transactions with parameters all succeed with DATABASE_POOLER=transaction', async () => {
    const db = open(viaPooler, { pooler: 'transaction', listenUrl: direct });
    expect((await migrate(db)).length).toBeGreaterThan(30);
    await db.query('CREATE TABLE pool_probe (worker int, n int)');
    // Four clients at once, each a stream of transactions with parameters: on a pooler each
    // transaction may land on another server connection than the last.
    await Promise.all(
      [0, 1, 2, 3].map(async (worker) => {
        for (let n = 0; n < 25; n++) {
          await db.transaction(async (tx) => {
            await tx.query('INSERT INTO pool_probe VALUES ($1, $2)', [worker, n]);
            await tx.query('SELECT count(*) FROM pool_probe WHERE worker = $1', [worker]);
          });
        }
      }),
    );
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool_probe WHERE n >= $1', [0]);
    expect(rows[0]!.n).toBe(100);
  });

  it('named statements would break on it: a statement prepared on one server connection is missing on the next', async () => {
    // One client connection, statements named (no DATABASE_POOLER): node-postgres prepares a
    // statement once per client connection, and PgBouncer lends a server connection per
    // transaction. The first call prepares it on server connection X; X is then lent to an open
    // transaction (PgBouncer reuses the last released connection first); the second call of the
    // same statement reaches another server connection, where it was never prepared.
    const named = open(viaPooler, { max: 1 });
    const blocker = open(viaPooler, { max: 1, pooler: 'transaction' });
    await named.query('SELECT $1::int AS n', [1]);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const isHolding = new Promise<void>((r) => (holding = r));
    const holder = blocker.transaction(async (tx) => {
      await tx.query('SELECT 1');
      holding();
      await held;
    });
    await isHolding;
    try {
      await expect(named.query('SELECT $1::int AS n', [2])).rejects.toThrow(/prepared statement .* does not exist/);
    } finally {
      release();
      await holder;
    }
    // With the setting, the same sequence works: nothing is named.
    const unnamed = open(viaPooler, { max: 1, pooler: 'transaction' });
    expect((await unnamed.query<{ n: number }>('SELECT $1::int AS n', [3])).rows[0]!.n).toBe(3);
    expect((await unnamed.query<{ n: number }>('SELECT $1::int AS n', [4])).rows[0]!.n).toBe(4);
  });

  it('a commit in one process wakes the listener of another through DATABASE_LISTEN_URL; without it, only its own commits wake it', async () => {
    const listening = open(viaPooler, { pooler: 'transaction', listenUrl: direct });
    const other = open(viaPooler, { pooler: 'transaction' });
    const heard: string[] = [];
    const stop = await listening.listen('pool_probe', (payload) => heard.push(payload));
    const deaf: string[] = [];
    const stopDeaf = await other.listen('pool_probe', (payload) => deaf.push(payload));
    await other.transaction(async (tx) => tx.notify('pool_probe'));
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(heard.length).toBeGreaterThan(0);
    // `other` heard its own commit (in process); `listening`'s commit it cannot hear: polls cover it.
    const before = deaf.length;
    await listening.transaction(async (tx) => tx.notify('pool_probe'));
    await new Promise((r) => setTimeout(r, 300));
    expect(deaf.length).toBe(before);
    await stop();
    await stopDeaf();
  });
});
