import pg from 'pg';
import { parseInt8, type Database, type QueryResult, type Sql } from './database.ts';

const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

function wrap(client: pg.Pool | pg.PoolClient): Sql {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const res = await client.query(text, params as unknown[] | undefined);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
    async exec(script: string): Promise<void> {
      await client.query(script); // no parameters: simple protocol, several statements allowed
    },
  };
}

/** A PostgreSQL server through a `pg` connection pool. */
export function openPostgres(url: string, opts: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, types, max: opts.max ?? 10 });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const outer = wrap(pool);
  return {
    kind: 'postgres',
    query: outer.query,
    exec: outer.exec,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
