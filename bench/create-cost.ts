/**
 * Where PostgreSQL's CPU per purchase create goes: the create's own statement
 * (`insertPurchase`, one autocommit statement, prepared, as `POST /api/merchants/v1/purchases`
 * runs it) on databases from which the parts of the schema it touches are taken away one by one,
 * each step's database without what the step before lacked and one thing more. A step's backend
 * CPU per create, minus the next step's, is what that part costs. Beside them: `SELECT 1` (a
 * statement's round trip) and the bare INSERT of `npm run bench` (one row, a primary key only,
 * autocommit).
 *
 *   npm run bench:create-cost
 *
 * It creates one database per step (`chipin_cost_<random>_<n>`, dropped at the end) on the
 * machine's PostgreSQL (a superuser on loopback), each migrated with one merchant made by
 * `chipin merchant create`, autovacuum off on its tables (a vacuum would fall in some step's
 * blocks and not others); no Chipin server runs. The steps take turns, a block of statements
 * each, so that a change of the machine's speed falls on every step alike. CPU is the step's
 * backends' own, from /proc/<pid>/stat (10 ms ticks, summed over the blocks); WAL is
 * `pg_current_wal_lsn()` around each block (the whole server: run it on a quiet machine). With one
 * connection (the default) this is the work of a create alone; `npm run bench` runs 50 at once,
 * which adds their waits and MultiXacts (docs/performance.md#what-limits-each-row).
 *
 * Environment (all optional):
 *   COST_DATABASE_URL  a superuser on a loopback server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   COST_CREATES=5000  statements measured per step
 *   COST_BLOCK=250     statements per turn
 *   COST_CONNECTIONS=1 connections running the step's statements at once (`npm run bench` has 50 requests in
 *                      flight on a pool of 10): their waits for each other's row locks, and the
 *                      MultiXacts of several transactions locking one row, come in
 *   COST_ONLY          comma-separated substrings of step names: only those steps (each still lacks what
 *                      the steps before it lack), e.g. `production` for a `perf record` of the create alone
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newUuid } from '../src/domain/ids.ts';
import { openPostgres } from '../src/db/postgres.ts';
import type { Database } from '../src/db/database.ts';
import type { Offer } from '../src/accounts/offer.ts';
import { listOffers } from '../src/accounts/offer-repository.ts';
import { insertPurchase } from '../src/purchases/purchase-repository.ts';
import { LOOPBACK, cpuTimeMs, intEnv, requireLoopback, runTs } from './children.ts';
import { autovacuumOff, currentLsn, lsnNumber } from './wal-decode.ts';

const adminUrl = process.env.COST_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';
const creates = intEnv('COST_CREATES', 5_000, 100, 1_000_000);
const block = intEnv('COST_BLOCK', 250, 10, 100_000);
const connections = intEnv('COST_CONNECTIONS', 1, 1, 64);
const only = process.env.COST_ONLY?.split(',')
  .map((part) => part.trim())
  .filter(Boolean);
requireLoopback(adminUrl, 'COST_DATABASE_URL');

const PURCHASE_FKS = ['purchases_account_id_fkey', 'purchases_client_id_fkey', 'purchases_offer_id_fkey'];
const EVENT_FKS = ['purchase_events_account_id_fkey', 'purchase_events_purchase_id_fkey'];
const PURCHASE_INDEXES = ['purchases_account_client_idx', 'purchases_account_created_state_idx', 'purchases_account_ref_idx', 'purchases_expiry_idx'];
const EVENT_INDEXES = ['purchase_events_moves_idx', 'purchase_events_purchase_idx'];

/** A step: what its database lacks beyond the step before's, and the statement it runs. */
interface Step {
  name: string;
  reference?: true;
  ddl: string[];
  statement: 'select 1' | 'bare insert' | 'create';
}

const STEPS: Step[] = [
  { name: 'SELECT 1', reference: true, ddl: [], statement: 'select 1' },
  { name: 'the bare INSERT', reference: true, ddl: [], statement: 'bare insert' },
  { name: 'the create, as in production', ddl: [], statement: 'create' },
  { name: 'without the home page running sum (trigger)', ddl: ['ALTER TABLE purchases DISABLE TRIGGER purchases_stats_insert'], statement: 'create' },
  {
    name: 'without the five foreign keys',
    ddl: [...PURCHASE_FKS.map((c) => `ALTER TABLE purchases DROP CONSTRAINT ${c}`), ...EVENT_FKS.map((c) => `ALTER TABLE purchase_events DROP CONSTRAINT ${c} CASCADE`)],
    statement: 'create',
  },
  { name: "without the purchase's four secondary indexes", ddl: PURCHASE_INDEXES.map((i) => `DROP INDEX ${i}`), statement: 'create' },
  { name: "without the event's two secondary indexes", ddl: EVENT_INDEXES.map((i) => `DROP INDEX ${i}`), statement: 'create' },
];

interface Prepared {
  step: Step;
  /** One pool of one connection per concurrent statement. */
  dbs: Database[];
  offer: Offer;
  cpuMs: number;
  walBytes: number;
  done: number;
}

async function main(): Promise<void> {
  const prefix = `chipin_cost_${randomBytes(5).toString('hex')}`;
  const admin = openPostgres(adminUrl, { max: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'chipin-cost-'));
  const prepared: Prepared[] = [];
  try {
    const removed: string[] = [];
    for (const [n, step] of STEPS.entries()) {
      if (!step.reference) removed.push(...step.ddl);
      if (only && !only.some((part) => step.name.includes(part))) continue;
      prepared.push(await prepare(admin, `${prefix}_${n}`, dataDir, step, step.reference ? [] : [...removed]));
      process.stderr.write(`  ready: ${step.name}\n`);
    }
    while (prepared.some((p) => p.done < creates)) {
      for (const p of prepared) if (p.done < creates) await runBlock(p, Math.min(block, creates - p.done));
    }
    console.log(`\nPostgreSQL backend CPU per statement, ${connections} connection(s) per step, ${creates} statements per step in turns of ${block}\n`);
    console.log('| step | µs CPU | WAL bytes | µs less than the step before |');
    console.log('|---|---:|---:|---:|');
    let before: number | undefined;
    for (const p of prepared) {
      const cpu = (p.cpuMs * 1000) / p.done;
      const less = p.step.reference || before === undefined ? '' : (before - cpu).toFixed(1);
      console.log(`| ${p.step.reference ? 'reference: ' : ''}${p.step.name} | ${cpu.toFixed(1)} | ${(p.walBytes / p.done).toFixed(0)} | ${less} |`);
      if (!p.step.reference) before = cpu;
    }
  } finally {
    for (const p of prepared) for (const db of p.dbs) await db.close();
    for (const n of STEPS.keys()) {
      await admin.query(`DROP DATABASE IF EXISTS ${prefix}_${n} WITH (FORCE)`).catch((err: unknown) => console.error(`could not drop ${prefix}_${n}:`, err));
    }
    await admin.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A migrated database with its merchant, `ddl` applied, one connection warmed on its statement. */
async function prepare(admin: Database, dbName: string, dataDir: string, step: Step, ddl: string[]): Promise<Prepared> {
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  const env = { CHIPIN_ENV: 'sandbox', DATA_DIR: dataDir, DATABASE_URL: dbUrl, LOG_LEVEL: 'warn', HOST: LOOPBACK, PUBLIC_URL: undefined };
  const merchant = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', 'Cost Shop', '--email', `cost-${process.pid}@chipin.test`, '--json'], env)) as {
    account_id: string;
  };
  const db = openPostgres(dbUrl, { max: 1 });
  await autovacuumOff(db.query.bind(db));
  await db.query('CREATE TABLE bare_purchases (id uuid PRIMARY KEY, account_id uuid NOT NULL, title text NOT NULL, amount_cents bigint NOT NULL, created_at timestamptz NOT NULL)');
  for (const statement of ddl) await db.query(statement);
  // The account's SHARED offer, the one a create without merchant_uid uses.
  const offer = (await listOffers(db, merchant.account_id.replace(/^acc_/, ''))).find((o) => o.type === 'SHARED');
  if (!offer) throw new Error(`account ${merchant.account_id} has no SHARED offer`);
  const dbs = [db, ...Array.from({ length: connections - 1 }, () => openPostgres(dbUrl, { max: 1 }))];
  const p: Prepared = { step, dbs, offer, cpuMs: 0, walBytes: 0, done: 0 };
  await Promise.all(
    dbs.map(async (d) => {
      for (let i = 0; i < 300; i++) await run(p, d);
    }),
  ); // plans, caches, the client's row
  return p;
}

/** One statement of the step: as the HTTP benchmark's create, one client e-mail and the same body (bench/scenarios.ts). */
function run(p: Prepared, db: Database): Promise<unknown> {
  if (p.step.statement === 'select 1') return db.query('SELECT 1');
  if (p.step.statement === 'bare insert') return db.query('INSERT INTO bare_purchases VALUES ($1, $2, $3, $4, now())', [newUuid(), p.offer.accountId, 'Weekend in Lisbon', 30_000]);
  return insertPurchase(
    db,
    { offer: p.offer, title: 'Weekend in Lisbon', amountCents: 30_000, currency: 'EUR', language: 'en_GB', metadata: {}, products: [], client: { email: 'leader@example.com' } },
    new Date(),
  );
}

async function runBlock(p: Prepared, n: number): Promise<void> {
  // Read each time: the pool closes a connection idle for 10 s, as while the other steps' databases are made.
  const pids = await Promise.all(p.dbs.map(async (d) => (await d.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
  const cpu = () => pids.reduce((sum, pid) => sum + cpuTimeMs(pid)!, 0);
  const query = p.dbs[0]!.query.bind(p.dbs[0]!);
  const lsn0 = lsnNumber(await currentLsn(query));
  const cpu0 = cpu();
  let left = n;
  await Promise.all(
    p.dbs.map(async (d) => {
      while (left > 0) {
        left--;
        await run(p, d);
      }
    }),
  );
  const cpu1 = cpu();
  p.walBytes += lsnNumber(await currentLsn(query)) - lsn0;
  p.cpuMs += cpu1 - cpu0;
  p.done += n;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
