-- Room on each page of `deliveries` for the claim's update to stay there. The claim writes a
-- lease (locked_until, lease_id: in no index and no index predicate), which PostgreSQL makes a
-- heap-only (HOT) update, adding no index entry, only when the new row version fits on the row's
-- own page. The dispatcher inserts rows in bulk, packing pages full: 88 % of the updates of a
-- burst were not HOT, and every claimed row cost an entry in each of the table's six indexes.
-- At 50 every claim's update is HOT: a claim took 1.9-2.1 ms instead of 2.5-2.6 in a burst of
-- 20,000, and the table with its indexes ended smaller (24 MB against 27), each row being
-- written three times or more (insert, lease, outcome) (docs/performance.md).
-- Applies to pages written from now on; a table rewrite (VACUUM FULL) applies it to old ones.
ALTER TABLE deliveries SET (fillfactor = 50);
