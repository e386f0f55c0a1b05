-- The hourly purge of finished PSP operations (src/psp/psp-operation-repository.ts,
-- docs/psp-connectors.md#the-operation-log) finds the old ones by this index, never by a scan of the
-- whole log. `started` rows (outcome unknown) are never purged, so they are left out of it.
CREATE INDEX psp_operations_done_updated ON psp_operations (updated_at) WHERE status = 'done';
