import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import type { ReplicaReads } from '../../src/db/read-replica.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

/**
 * The back office's reads on a streaming replica (docs/deployment.md#read-replicas): a throwaway
 * primary (initdb, port 5461) and its hot standby (pg_basebackup -R, port 5462), built from
 * PostgreSQL 15's binaries. Run by hand (`npm run test:replica`): it starts two servers, so it is
 * skipped unless CHIPIN_TEST_REPLICA=1, and where the binaries are missing.
 */
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const runs = process.env.CHIPIN_TEST_REPLICA === '1' && existsSync(join(BIN, 'pg_basebackup'));
if (process.env.CHIPIN_TEST_REPLICA === '1' && !runs) console.info(`read-replica test skipped: no PostgreSQL binaries in ${BIN} (PG_BIN)`);
const PRIMARY_PORT = 5461;
const REPLICA_PORT = 5462;
const primaryUrl = `postgres://postgres@127.0.0.1:${PRIMARY_PORT}/postgres`;
const replicaUrl = `postgres://postgres@127.0.0.1:${REPLICA_PORT}/postgres`;

/** PostgreSQL's tools refuse to run as root: as the postgres user then. */
function pg(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]] : [join(BIN, tool), args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

describe.runIf(runs)('back-office reads on a streaming replica (DATABASE_READ_URL)', () => {
  let dir: string;
  let primary: Database;
  let replica: Database;
  let patient: TestApp; // DATABASE_READ_MAX_LAG_MS = 60 s: reads the paused replica
  let strict: TestApp; // DATABASE_READ_MAX_LAG_MS = 100 ms: leaves it for the primary
  let m: Caller;
  let cookie: string;

  const start = (data: string, port: number) =>
    pg('pg_ctl', ['-D', data, '-w', '-l', join(dir, `${port}.log`), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  const listed = async (app: TestApp): Promise<string> => {
    const res = await app.server.inject({ method: 'GET', url: '/dashboard/purchases', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const newPurchase = async (title: string) => expect((await m.post('/api/merchants/v1/purchases', minimalPurchase({ title }))).statusCode).toBe(201);
  const readsOf = (app: TestApp) => app.services.reads as ReplicaReads;
  /** Checks again until `done` holds (bounded: 100 checks, 50 ms apart). */
  const untilVerdict = async (app: TestApp, done: (useReplica: boolean) => boolean) => {
    for (let i = 0; i < 100; i++) {
      if (done((await readsOf(app).check()).useReplica)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the verdict never changed');
  };
  const caughtUp = async () => {
    const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    for (let i = 0; i < 100; i++) {
      const r = await replica.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0]!.lsn]);
      if (r.rows[0]!.ok) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the replica never caught up');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chipin-replica-'));
    chmodSync(dir, 0o777);
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
    pg('initdb', ['-D', join(dir, 'primary'), '-U', 'postgres', '-A', 'trust', '--no-sync']);
    start(join(dir, 'primary'), PRIMARY_PORT);
    pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(PRIMARY_PORT), '-U', 'postgres', '-D', join(dir, 'replica'), '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    start(join(dir, 'replica'), REPLICA_PORT);
    primary = openPostgres(primaryUrl, { max: 2 });
    replica = openPostgres(replicaUrl, { max: 1 });
    patient = await startTestApp({ databaseUrl: primaryUrl, databaseReadUrl: replicaUrl, databaseReadMaxLagMs: 60_000 }, { db: openPostgres(primaryUrl) });
    strict = await startTestApp({ databaseUrl: primaryUrl, databaseReadUrl: replicaUrl, databaseReadMaxLagMs: 100 }, { db: openPostgres(primaryUrl) });
    m = await caller(patient);
    ({ cookie } = await signIn(patient, m.merchant));
  });

  afterAll(async () => {
    await replica?.query('SELECT pg_wal_replay_resume()').catch(() => {});
    await Promise.all([patient?.close(), strict?.close(), primary?.close(), replica?.close().catch(() => {})]);
    for (const data of ['replica', 'primary']) {
      if (dir && existsSync(join(dir, data, 'postmaster.pid'))) pg('pg_ctl', ['-D', join(dir, data), '-m', 'immediate', 'stop']);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the purchases list reads the replica: a purchase made while its replay is paused is not listed until it resumes', async () => {
    await newPurchase('Replayed before the pause');
    await caughtUp();
    await replica.query('SELECT pg_wal_replay_pause()');
    await newPurchase('Made during the pause');
    await untilVerdict(patient, (useReplica) => useReplica);
    const body = await listed(patient);
    expect(body).toContain('Replayed before the pause');
    expect(body).not.toContain('Made during the pause');
    const metrics = (await patient.server.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^chipin_read_queries_total\{target="replica"\} [1-9]/m);
    expect(metrics).toMatch(/^chipin_read_replica_in_use 1$/m);
  });

  it('beyond DATABASE_READ_MAX_LAG_MS the same list reads the primary and shows the new purchase; the metric and the log say so', async () => {
    await untilVerdict(strict, (useReplica) => !useReplica);
    expect(readsOf(strict).verdict).toMatchObject({ useReplica: false, reason: 'lag' });
    expect(await listed(strict)).toContain('Made during the pause');
    const metrics = (await strict.server.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^chipin_read_replica_in_use 0$/m);
    expect(metrics).toMatch(/^chipin_read_queries_total\{target="primary"\} [1-9]/m);
    expect(strict.logs.some((l) => l.includes('back-office reads go to the primary') && l.includes('"reason":"lag"'))).toBe(true);
  });

  it('once replay resumes the strict process reads the replica again, which now lists the purchase', async () => {
    await replica.query('SELECT pg_wal_replay_resume()');
    await caughtUp();
    await untilVerdict(strict, (useReplica) => useReplica);
    expect(await listed(strict)).toContain('Made during the pause');
    expect(await listed(patient)).toContain('Made during the pause');
  });

  it('a replica that stops answering sends the reads to the primary at the next check', async () => {
    await replica.close();
    pg('pg_ctl', ['-D', join(dir, 'replica'), '-m', 'immediate', 'stop']);
    await newPurchase('Made with the replica down');
    expect(await readsOf(patient).check()).toMatchObject({ useReplica: false, reason: 'unreachable' });
    expect(await listed(patient)).toContain('Made with the replica down');
  });
});
