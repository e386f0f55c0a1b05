import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { maintainPartitions, partitionAppendOnlyTables } from '../../src/db/partitions.ts';
import { isolatedDatabase, onPostgres, openTestDatabase } from '../helpers/database.ts';

/** The tables migration 067 partitions on PostgreSQL with pg_partman (docs/partitioning.md). */
const APPEND_ONLY = ['audit_log', 'delivery_attempts', 'purchase_events', 'risk_decisions'];

let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

async function relkinds(sql: Database, tables: string[]): Promise<Record<string, string>> {
  const { rows } = await sql.query<{ name: string; kind: string }>(
    'SELECT relname AS name, relkind::text AS kind FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname = ANY($1::text[])',
    [tables],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.kind]));
}

/** The partitions of `table`: name and range end (null for the default partition), oldest first. */
async function partitions(sql: Database, table: string): Promise<{ name: string; end: Date | null }[]> {
  const { rows } = await sql.query<{ name: string; end: Date | null }>(
    `SELECT c.relname AS name, (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS end
       FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
      WHERE h.inhparent = $1::regclass ORDER BY 2 NULLS LAST`,
    [table],
  );
  return rows.map((r) => ({ name: r.name, end: r.end === null ? null : new Date(r.end) }));
}

async function partmanInstalled(sql: Database): Promise<boolean> {
  const { rows } = await sql.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_partman'");
  return rows.length > 0;
}

describe(`the append-only tables' partitions (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('are monthly ranges with months ahead and a default on PostgreSQL with pg_partman, plain tables everywhere else (which chipin partition leaves so on PGlite); deliveries and the ledger stay plain', async () => {
    db = await openTestDatabase();
    const kinds = await relkinds(db, [...APPEND_ONLY, 'deliveries', 'ledger_entries']);
    const partitioned = onPostgres && (await partmanInstalled(db));
    if (process.env.CHIPIN_REQUIRE_PARTMAN === '1' && onPostgres) expect(partitioned).toBe(true);
    for (const t of APPEND_ONLY) expect(kinds[t], t).toBe(partitioned ? 'p' : 'r');
    expect(kinds.deliveries).toBe('r');
    expect(kinds.ledger_entries).toBe('r');
    if (!partitioned) {
      expect(await maintainPartitions(db, [{ table: 'risk_decisions', before: new Date() }])).toEqual({ maintained: [], dropped: [] });
      if (!onPostgres) {
        expect(await partitionAppendOnlyTables(db)).toEqual({ kind: 'pglite' });
        expect(Object.values(await relkinds(db, APPEND_ONLY))).toEqual(APPEND_ONLY.map(() => 'r'));
      }
      return;
    }
    for (const t of APPEND_ONLY) {
      const parts = await partitions(db, t);
      expect(parts.at(-1), t).toEqual({ name: `${t}_default`, end: null });
      const months = parts.slice(0, -1);
      // This month and four ahead, each a calendar month (UTC, the server's zone in the tests).
      expect(months.length, t).toBe(5);
      expect(months[0]!.end!.getTime()).toBeGreaterThan(Date.now());
      expect(months[0]!.end!.getTime()).toBeLessThanOrEqual(Date.now() + 31 * 86_400_000);
      for (const m of months) expect(m.end!.getUTCDate()).toBe(1);
    }
  });

  it.runIf(onPostgres)(
    'chipin partition converts a database migrated before pg_partman, once when two run at once: rows kept, ids continuing, the same indexes, triggers firing once, new rows in their month',
    async () => {
      const iso = await isolatedDatabase({ empty: true });
      onTestFinished(() => iso.dispose());
      db = await iso.open();
      const other = await iso.open();
      await migrate(db);
      if (!(await db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_partman'")).rows.length) {
        expect(process.env.CHIPIN_REQUIRE_PARTMAN).not.toBe('1');
        return;
      }
      expect(await relkinds(db, APPEND_ONLY)).toEqual(Object.fromEntries(APPEND_ONLY.map((t) => [t, 'r'])));
      expect(await partitionAppendOnlyTables(db)).toEqual({ kind: 'no-partman' });

      const account = randomUUID();
      await db.query("INSERT INTO accounts (id, name) VALUES ($1, 'Shoe Shop')", [account]);
      const { rows: events } = await db.query<{ id: number }>(
        `INSERT INTO purchase_events (account_id, type, data, created_at)
       SELECT $1, 'purchase.created', '{}', now() - make_interval(days => n) FROM generate_series(1, 40) n RETURNING id`,
        [account],
      );
      const delivery = randomUUID();
      await db.query(
        `INSERT INTO deliveries (id, account_id, event_id, kind, url, payload, status, created_at, updated_at)
       VALUES ($1, $2, $3, 'webhook', 'https://shop.example/hooks', '{}', 'succeeded', now(), now())`,
        [delivery, account, events[0]!.id],
      );
      await db.query(
        `INSERT INTO delivery_attempts (account_id, delivery_id, attempt, url, started_at, duration_ms, outcome)
       VALUES ($1, $2, 1, 'https://shop.example/hooks', now() - interval '35 days', 12, 'succeeded')`,
        [account, delivery],
      );
      await db.query("INSERT INTO audit_log (id, account_id, actor, action) VALUES ($1, $2, 'cli', 'merchant.created')", [randomUUID(), account]);
      const indexesBefore = await indexNames(db, APPEND_ONLY);

      await db.exec('CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman');
      // Two operators (or a start and an operator) at once: each table converted by one of them, none twice.
      const both = await Promise.all([partitionAppendOnlyTables(db), partitionAppendOnlyTables(other)]);
      const converted = both.flatMap((o) => (o.kind === 'done' ? o.partitioned : [o.kind]));
      expect(converted.sort()).toEqual([...APPEND_ONLY].sort());
      expect(await partitionAppendOnlyTables(db)).toEqual({ kind: 'done', partitioned: [] });
      expect(await relkinds(db, APPEND_ONLY)).toEqual(Object.fromEntries(APPEND_ONLY.map((t) => [t, 'p'])));

      // The rows stay where they were, in the old table now the partition of every row written before next month.
      const { rows: counts } = await db.query<{ t: string; n: number }>(
        `SELECT tableoid::regclass::text AS t, count(*)::int AS n FROM purchase_events GROUP BY 1
       UNION ALL SELECT tableoid::regclass::text, count(*)::int FROM delivery_attempts GROUP BY 1
       UNION ALL SELECT tableoid::regclass::text, count(*)::int FROM audit_log GROUP BY 1 ORDER BY 1`,
      );
      expect(counts).toEqual([
        { t: 'audit_log_legacy', n: 1 },
        { t: 'delivery_attempts_legacy', n: 1 },
        { t: 'purchase_events_legacy', n: 40 },
      ]);
      // risk_decisions held nothing: no old table kept for it.
      expect((await partitions(db, 'risk_decisions')).map((p) => p.name)).not.toContain('risk_decisions_legacy');
      expect(await indexNames(db, APPEND_ONLY)).toEqual(indexesBefore);

      // Ids continue the identity's sequence; a row of a month ahead goes to that month's partition.
      const { rows: next } = await db.query<{ id: number; part: string }>(
        `INSERT INTO purchase_events (account_id, type, data, created_at) VALUES ($1, 'purchase.created', '{}', now()), ($1, 'purchase.created', '{}', now() + interval '2 months')
       RETURNING id, tableoid::regclass::text AS part`,
        [account],
      );
      expect(Math.min(...next.map((r) => Number(r.id)))).toBeGreaterThan(Math.max(...events.map((e) => Number(e.id))));
      expect(next[0]!.part).toBe('purchase_events_legacy');
      expect(next[1]!.part).toMatch(/^purchase_events_p\d{4}_\d{2}$/);

      // The triggers are the partitioned table's, each partition's a clone: none of the old table's own is left to fire twice.
      const { rows: own } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'purchase_events_legacy'::regclass AND NOT tgisinternal AND tgparentid = 0",
      );
      expect(own[0]!.n).toBe(0);
      const { rows: parentTriggers } = await db.query<{ name: string }>(
        "SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'purchase_events'::regclass AND NOT tgisinternal ORDER BY 1",
      );
      expect(parentTriggers.map((r) => r.name)).toEqual(['purchase_events_stats_delete', 'purchase_events_stats_insert']);

      // The foreign key into the events went (it would need the partition column); the attempts' into deliveries stayed.
      const { rows: fks } = await db.query<{ name: string }>(
        "SELECT conname AS name FROM pg_constraint WHERE contype = 'f' AND conrelid IN ('deliveries'::regclass, 'delivery_attempts'::regclass) ORDER BY 1",
      );
      expect(fks.map((r) => r.name)).toEqual([
        'deliveries_account_id_fkey',
        'deliveries_purchase_id_fkey',
        'delivery_attempts_account_id_fkey',
        'delivery_attempts_delivery_id_fkey',
      ]);
    },
  );

  it.runIf(onPostgres)(
    'retention drops the months of risk_decisions wholly past it, never a month it still covers, the default partition or another table’s; maintenance makes missing months ahead again',
    async () => {
      const iso = await isolatedDatabase();
      onTestFinished(() => iso.dispose());
      db = await iso.open();
      const reader = await iso.open();
      if (!(await partmanInstalled(db))) {
        expect(process.env.CHIPIN_REQUIRE_PARTMAN).not.toBe('1');
        return;
      }
      // pg_partman's first maintenance settles how far ahead it keeps months; measured from there.
      await maintainPartitions(db, []);
      const before = await partitions(db, 'risk_decisions');
      const auditBefore = await partitions(db, 'audit_log');
      // Up to the middle of the third month: the first two end before it, the third does not.
      const cut = new Date(before[1]!.end!.getTime() + 14 * 86_400_000);
      const outcome = await maintainPartitions(db, [{ table: 'risk_decisions', before: cut }]);
      expect(outcome.maintained.sort()).toEqual(APPEND_ONLY);
      expect(outcome.dropped).toEqual([before[0]!.name, before[1]!.name]);
      expect(await partitions(db, 'risk_decisions')).toEqual(before.slice(2));
      expect(await partitions(db, 'audit_log')).toEqual(auditBefore);

      // A month whose drop cannot have its lock (a long read of the table holds it) is left for the
      // next run, without failing the maintenance.
      await reader.transaction(async (tx) => {
        await tx.query('SELECT count(*) FROM risk_decisions');
        const later = new Date(before[2]!.end!.getTime() + 86_400_000);
        expect(await maintainPartitions(db!, [{ table: 'risk_decisions', before: later }])).toEqual({ maintained: APPEND_ONLY, dropped: [] });
      });
      expect((await partitions(db, 'risk_decisions'))[0]).toEqual(before[2]);

      // The newest month ahead dropped by hand comes back at the next maintenance.
      const newest = auditBefore.at(-2)!;
      await db.query(`DROP TABLE ${newest.name}`);
      expect((await maintainPartitions(db, [])).dropped).toEqual([]);
      expect(await partitions(db, 'audit_log')).toEqual(auditBefore);
    },
  );
});

async function indexNames(sql: Database, tables: string[]): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    'SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = ANY(SELECT ($1::text[])[i]::regclass FROM generate_subscripts($1::text[], 1) i) ORDER BY 1',
    [tables],
  );
  return rows.map((r) => r.name);
}
