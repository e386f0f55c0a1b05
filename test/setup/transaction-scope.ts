import { checkTransactionScope } from '../../src/db/transaction-scope.ts';

// Setup file of the embedded database's projects (pglite, browser): reads that would wait for the
// transaction they run in (a query on the database's own handle, a cache read) fail at once with
// TransactionScopeError, fresh copy or not, instead of hanging a run when a cache's copy lapses
// mid-flow (docs/architecture.md#conventions). The code paths are the same on PostgreSQL, so the
// postgres project, which reruns the files, goes without it (it costs 5-7 % of a run).
checkTransactionScope();
