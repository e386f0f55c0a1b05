// Setup file of the `pglite` project: its files run on the embedded database even when the run
// was started with DATABASE_URL (which the `postgres` project uses). docs/testing.md.
delete process.env.DATABASE_URL;
