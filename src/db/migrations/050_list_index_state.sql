-- The purchases' list index carries the state as its last column, so a list filtered by one state
-- (the v1 list's `state=`, the back office's state filter, the export's) checks it in the index's
-- entries and reads from the table only the purchases it returns, in the index's order. Before,
-- it read every purchase of the account newest first and dropped those of other states: at 10 M
-- purchases, 985 table rows for a page of 21 refunded ones (docs/performance.md#the-state-filter).
--
-- No write gains an index entry: `state` is already in the predicate of purchases_expiry_idx, so
-- an update that changes it is never HOT and writes an entry into every index of the table.
--
-- The new index is built before the old one is dropped: the build blocks the table's writes, not
-- its reads, and only the drop at the end takes the table's exclusive lock, briefly
-- (docs/deployment.md#rolling-upgrade). It keeps its own name: a rename is a contract step
-- (test/unit/migration-rules.test.ts), though no statement names an index.
CREATE INDEX purchases_account_created_state_idx ON purchases (account_id, created_at DESC, id DESC, state);
DROP INDEX purchases_account_created_idx;
