/**
 * WAL written per purchase create, on PostgreSQL: records, bytes and B-tree leaf inserts (index
 * entries) per `POST /api/merchants/v1/purchases`, the write path's cost on the primary, its
 * replicas and its WAL archive.
 *
 *   WAL_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/wal-per-create.ts
 *
 * It creates a database of its own on that server (`chipin_wal_<random>`, dropped at the end),
 * turns autovacuum off on its tables (a vacuum started mid-run would be counted), starts one
 * `chipin serve` on it (loopback only), creates WAL_WARMUP purchases, waits for their events to be
 * dispatched, reads `pg_current_wal_lsn()`, creates WAL_CREATES purchases (WAL_CONCURRENCY at a
 * time), waits for their dispatch, reads it again, and decodes that range with pg_waldump. Other
 * databases of the server write WAL meanwhile (a shared machine): only the records of this
 * database's relations, and the commit records of the transactions that wrote them, are counted.
 * It must read the server's pg_wal directory (run it as root or as the postgres user). A
 * temporary physical replication slot, held by its own connection for the run, keeps the server
 * from recycling that WAL before it is decoded (it goes with the connection, even on a crash).
 *
 * Environment (all optional):
 *   WAL_DATABASE_URL   a PostgreSQL superuser's URL on a loopback server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   WAL_CREATES=2000   purchases measured
 *   WAL_WARMUP=200     purchases created first, not measured
 *   WAL_CONCURRENCY=4  creates in flight at once
 *   WAL_CLIENTS=same   `same`: every purchase for one client e-mail (as bench/scenarios.ts); `new`: a new client each
 *   PG_WALDUMP         default /usr/lib/postgresql/15/bin/pg_waldump
 *   PG_WAL_DIR         default <data_directory>/pg_wal as the server says
 *
 * Prints a table per record type and the per-create figures; exits non-zero on any failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../src/db/postgres.ts';
import type { Database } from '../src/db/database.ts';
import { LOOPBACK, freePort, killAllSync, requireLoopback, runTs, spawnTs, stopAll, waitForOk, intEnv } from './children.ts';
import { basicAuth, type Credentials } from './scenarios.ts';
import { autovacuumOff, currentLsn, decodeWal, relationNames, walDirectory } from './wal-decode.ts';
import { UNDISPATCHED_SQL, untilNoneUndispatched } from './undispatched.ts';

const adminUrl = process.env.WAL_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';
const creates = intEnv('WAL_CREATES', 2_000, 1, 100_000);
const warmup = intEnv('WAL_WARMUP', 200, 0, 10_000);
const concurrency = intEnv('WAL_CONCURRENCY', 4, 1, 64);
const clients = process.env.WAL_CLIENTS?.trim() || 'same';
if (clients !== 'same' && clients !== 'new') throw new Error(`WAL_CLIENTS must be "same" or "new", got "${clients}"`);
requireLoopback(adminUrl, 'WAL_DATABASE_URL');

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Posts one purchase; throws unless 201. Bounded by a 10 s timeout. */
async function create(url: string, token: string, i: number): Promise<void> {
  const email = clients === 'same' ? 'leader@example.com' : `leader-${i}@example.com`;
  const res = await fetch(`${url}/api/merchants/v1/purchases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Weekend in Lisbon', amount: 30000, client: { email } }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/merchants/v1/purchases answered ${res.status}: ${text.slice(0, 300)}`);
}

async function createMany(url: string, token: string, n: number, offset: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await create(url, token, offset + next++);
    }),
  );
}

/** Waits (at most 60 s) until every purchase event was dispatched by the delivery worker: its writes belong to the creates. */
async function untilDispatched(db: Database): Promise<void> {
  await untilNoneUndispatched(async () => (await db.query<{ n: number }>(UNDISPATCHED_SQL)).rows[0]!.n, 60_000, 200);
  await sleep(1_500); // the worker's last marks and the job poll's idle reads
}

async function main(): Promise<void> {
  const dbName = `chipin_wal_${randomBytes(5).toString('hex')}`;
  const admin = openPostgres(adminUrl, { max: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'chipin-wal-'));
  const slot = new pg.Client({ connectionString: adminUrl });
  let db: Database | undefined;
  try {
    await slot.connect();
    await slot.query('SELECT pg_create_physical_replication_slot($1, true, true)', [dbName]);
    const walDir = await walDirectory((sql, params) => admin.query(sql, params));
    await admin.query(`CREATE DATABASE ${dbName}`);
    const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
    const env = { CHIPIN_ENV: 'sandbox', DATA_DIR: dataDir, DATABASE_URL: dbUrl, LOG_LEVEL: 'warn', HOST: LOOPBACK, PUBLIC_URL: undefined };
    // Migrates the new database and makes the merchant.
    const credentials = JSON.parse(
      await runTs('src/main.ts', ['merchant', 'create', '--name', 'WAL Shop', '--email', `wal-${process.pid}@chipin.test`, '--json'], env),
    ) as Credentials;
    db = openPostgres(dbUrl, { max: 2 });
    await autovacuumOff(db.query.bind(db));

    const port = await freePort();
    const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(port) });
    const url = `http://${LOOPBACK}:${port}`;
    await waitForOk(child, `${url}/readyz`, 60_000);
    const tokenRes = await fetch(`${url}/api/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(credentials), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(10_000),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;

    await createMany(url, token, warmup, 0);
    await untilDispatched(db);
    const query = db.query.bind(db);
    const start = await currentLsn(query);
    const t0 = performance.now();
    await createMany(url, token, creates, warmup);
    const seconds = (performance.now() - t0) / 1000;
    await untilDispatched(db);
    const end = await currentLsn(query);
    const { dbOid, names } = await relationNames(query);
    await stopAll();

    const { byType, entries, total, others } = decodeWal(walDir, start, end, dbOid, names);
    const per = (n: number) => (n / creates).toFixed(2);
    console.log(`WAL per purchase create: ${creates} creates (${clients} client), ${warmup} warm-up, ${concurrency} at once, ${seconds.toFixed(1)} s; LSN ${start} .. ${end}`);
    console.log(`(${others} records of other databases or of the server in that range were left out)\n`);
    console.log('| record | count | per create | bytes per create | with full-page images |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [key, t] of [...byType].sort((a, b) => b[1].records - a[1].records)) {
      console.log(`| ${key} | ${t.records} | ${per(t.records)} | ${per(t.bytes)} | ${per(t.bytesWithFpi)} |`);
    }
    console.log(`| **total** | ${total.records} | ${per(total.records)} | ${per(total.bytes)} | ${per(total.bytesWithFpi)} |\n`);
    console.log('| index | INSERT_LEAF per create | INSERT_POST per create |');
    console.log('|---|---:|---:|');
    for (const [name, e] of [...entries].sort((a, b) => b[1].leaf + b[1].post - a[1].leaf - a[1].post)) console.log(`| ${name} | ${per(e.leaf)} | ${per(e.post)} |`);
    const leaves = [...entries.values()].reduce((a, e) => a + e.leaf, 0);
    const posts = [...entries.values()].reduce((a, e) => a + e.post, 0);
    console.log(`| **total** | ${per(leaves)} | ${per(posts)} |\n`);
    console.log(
      `per create: ${per(total.records)} records, ${per(total.bytes)} bytes (${per(total.bytesWithFpi)} with full-page images), ${per(leaves)} B-tree leaf inserts (+ ${per(posts)} into posting lists)`,
    );
  } finally {
    await stopAll();
    await db?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((err: unknown) => console.error(`could not drop ${dbName}:`, err));
    await admin.close();
    await slot.end().catch(() => {}); // drops the temporary slot
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.on('exit', killAllSync);
main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
