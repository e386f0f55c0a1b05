import type { Database, Sql } from '../../src/db/database.ts';

/** A statement a test recorded, to look at its plan. */
export interface Statement {
  text: string;
  params: readonly unknown[];
}

/** `db` seen through a Sql that records every statement it runs into `seen`. */
export function recordingSql(db: Database, seen: Statement[]): Sql {
  return {
    query: (text, params = [], options) => (seen.push({ text, params }), db.query(text, params, options)),
    exec: (s) => db.exec(s),
    notify: (c) => db.notify(c),
  };
}

/**
 * The plan the database gives a statement, as `EXPLAIN` prints it, with sequential scans off: on a
 * test's tiny tables one would be cheaper, and the test wants to see which index answers.
 */
export function planWithoutSeqScan(db: Database, { text, params }: Statement): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off');
    return (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}
