import pg from 'pg';
import { afterEach } from 'vitest';
import { OVERLAP_WARNING, refuseOverlappingStatements } from '../../src/db/statement-turns.ts';

// Setup file of every project: one statement at a time on a connection (docs/testing.md#one-statement-at-a-time).
//
// 1. A transaction's statements that overlap (a Promise.all or a timer on a `tx`), or a statement
//    still running when its transaction's body returned, fail with OverlappingStatementError
//    instead of waiting their turn as in production (src/db/statement-turns.ts).
refuseOverlappingStatements();

interface ClientInternals {
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
}

const state = globalThis as typeof globalThis & { chipinOneStatementAtATime?: { warnings: string[] } };
if (!state.chipinOneStatementAtATime) {
  const warnings: string[] = [];
  state.chipinOneStatementAtATime = { warnings };
  // 2. A `pg.Client` a test holds itself, sent a query while it runs one: node-postgres queues it
  //    and warns once a process ("client.query() when the client is already executing a query",
  //    deprecated, refused by pg 9). Refused here at the call, every time, with the caller's stack.
  //    The fields read are pg 8's (lib/client.js); without them this check stands aside and 3. remains.
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client & ClientInternals, ...args: unknown[]) {
    if (this._activeQuery != null || (this._queryQueue?.length ?? 0) > 0) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      throw new Error(
        `client.query(${JSON.stringify(text?.slice(0, 120))}) while this pg client is already executing a query: one query at a time on a client (await it, or use a pg.Pool)`,
      );
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  // 3. The warnings themselves, whatever sent them: node-postgres's, and the one a process prints
  //    when its transactions' statements waited their turn. Each fails the test that saw it.
  process.on('warning', (w: Error & { code?: string }) => {
    if (w.message.includes('already executing a query') || w.code === OVERLAP_WARNING) warnings.push(`${w.name}: ${w.message}\n${w.stack ?? ''}`);
  });
}

afterEach(() => {
  const seen = state.chipinOneStatementAtATime!.warnings.splice(0);
  if (seen.length > 0) throw new Error(`two queries at once on one connection (docs/testing.md#one-statement-at-a-time):\n${seen.join('\n')}`);
});
